"""What a command does: selection, orchestration, rollback files, the partial-failure rule.

The operations take the adapter (``kcli.admin.Admin``) and plain values, call the planner
(``kcli.offsets``) and return ``kcli.model`` values for ``kcli.render``; the CLI parses and
calls them, and so can a Python user:

- ``topics``: select, describe (kafka-topics' filters and order), create, add partitions, delete;
- ``groups``: list, describe views, delete offsets;
- ``lag``: lag in time per partition and group (the next record's timestamp, one Fetch per leader and 10k partitions);
- ``resets``: a package, one job per module: the request, the cluster's answers (``gather``,
  shared with ``compare``), the planning, the rollback file, the execution and its report;
- ``compare``: every reset policy side by side over one set of answers (a dry run);
- ``list_offsets``: kafka-get-offsets' partition selection and answers;
- ``failures``: the one rule from per-item results to exit codes 0/1/3.
"""
