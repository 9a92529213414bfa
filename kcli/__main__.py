from kcli.cli.main import main

main()
