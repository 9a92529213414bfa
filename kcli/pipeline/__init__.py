"""kcli's data pipeline on Spark: the ``kcli-kafka`` data source (``kcli.pipeline.source``) and the
audit jobs. Importing this package does not import pyspark; running an audit does.

The CLI calls ``run_audit(AuditOptions(...))`` and renders the ``AuditResult`` (JSON field
documentation in ``kcli.pipeline.result``)."""

from kcli.pipeline.audit import AuditOptions, audit_timestamps, run_audit
from kcli.pipeline.result import AuditResult, AuditTotal, PartitionAudit
from kcli.pipeline.spark import JavaNotFound, Progress, check_java

__all__ = [
    "AuditOptions", "AuditResult", "AuditTotal", "JavaNotFound", "PartitionAudit", "Progress",
    "audit_timestamps", "check_java", "run_audit",
]
