"""Client quotas on kcli's own connection (confluent-kafka has no quota calls):
DescribeClientQuotas and AlterClientQuotas, answered by the controller (any broker forwards)."""

from __future__ import annotations

from kcli.admin.wire.base import WireBase, error_name
from kcli.errors import OperationError
from kcli.model import BrokerError, QuotaEntity

MATCH = {"exact": 0, "default": 1, "any": 2}


class QuotaRequests(WireBase):
    def describe_client_quotas(self, components: list[tuple[str, str, str | None]],
                               strict: bool) -> list[QuotaEntity]:
        """The entities matching every (entity type, "exact" | "default" | "any", name)
        component (``strict``: and no other type)."""
        from kafka.protocol.admin.client_quotas import DescribeClientQuotasRequest as Req

        version = self._version(Req, "DescribeClientQuotas")
        resp = self.send(Req(version=version, strict=strict, components=[
            Req.ComponentData(entity_type=t, match_type=MATCH[m], match=n) for t, m, n in components]))
        if resp.error_code:
            raise OperationError(f"DescribeClientQuotas failed: "
                                 f"{resp.error_message or error_name(resp.error_code)}")
        return [QuotaEntity([(e.entity_type, e.entity_name) for e in x.entity],
                            {v.key: v.value for v in x.values}) for x in resp.entries or []]

    def alter_client_quotas(self, parts: list[tuple[str, str | None]], set_: dict[str, float],
                            remove: list[str], validate_only: bool) -> BrokerError | None:
        """Set and remove quotas of one entity (``validate_only``: the broker checks, nothing
        changes); the broker's error, if any."""
        from kafka.protocol.admin.client_quotas import AlterClientQuotasRequest as Req

        version = self._version(Req, "AlterClientQuotas")
        E = Req.EntryData
        ops = [E.OpData(key=k, value=float(v), remove=False) for k, v in set_.items()]
        ops += [E.OpData(key=k, value=0.0, remove=True) for k in remove]
        resp = self.send(Req(version=version, validate_only=validate_only, entries=[E(
            entity=[E.EntityData(entity_type=t, entity_name=n) for t, n in parts], ops=ops)]))
        for entry in resp.entries:
            if entry.error_code:
                return BrokerError(entry.error_code, error_name(entry.error_code),
                                   entry.error_message or "")
        return None
