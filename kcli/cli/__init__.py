"""The command line: one module per command family (parse the flags, call kcli.ops or the
admin adapter, render), the command tree built from one table (tree), the global options and the
argument rewriting (globals), the per-invocation state (context) and the entry point (main.run).
No logic: what a command does lives in kcli.ops."""
