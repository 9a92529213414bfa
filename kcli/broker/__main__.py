"""``python -m kcli.broker``: run the embedded broker in the foreground (the same server as
``kcli broker start``). Prints ``bootstrap: host:port,...`` once ready; stops on SIGINT/SIGTERM."""

import argparse

from kcli.broker.embedded import run_forever


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m kcli.broker")
    parser.add_argument("--listen", default="127.0.0.1:9092")
    parser.add_argument("--nodes", type=int, default=1)
    parser.add_argument("--data-dir")
    parser.add_argument("--config", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--pose-as")
    args = parser.parse_args(argv)
    configs = dict(item.split("=", 1) for item in args.config)
    run_forever(args.listen, args.nodes, args.data_dir, configs, args.pose_as,
                ready_callback=lambda bootstrap: print(f"bootstrap: {bootstrap}", flush=True))


if __name__ == "__main__":
    main()
