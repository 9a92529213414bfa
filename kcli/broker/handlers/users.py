"""DescribeUserScramCredentials and AlterUserScramCredentials (v0), so that ``kafka-configs
--entity-type users`` manages the SCRAM users (Cluster.users), with ScramControlManager's
checks and messages; and DescribeClientQuotas, which its ``--describe`` sends too (no quotas
here: none to describe). Describing needs DESCRIBE on the cluster, altering ALTER, as KafkaApis
and ControllerApis authorize them (with the authorizer on)."""

from __future__ import annotations

from collections import Counter

from kcli.broker import scram
from kcli.broker.acl import Op
from kcli.broker.apikeys import ALTER_USER_SCRAM_CREDENTIALS, DESCRIBE_USER_SCRAM_CREDENTIALS
from kcli.broker.dispatch import RequestContext, handles
from kcli.broker.errors import BrokerError, Err
from kcli.protocol import RESPONSES

NOT_AUTHORIZED = "Cluster authorization failed."
TYPE_OF = {name: number for number, name in scram.MECHANISM_TYPES.items()}


@handles(DESCRIBE_USER_SCRAM_CREDENTIALS, 0, 0)
async def describe_user_scram_credentials(ctx: RequestContext, req):
    R = RESPONSES[DESCRIBE_USER_SCRAM_CREDENTIALS]
    Res = R.DescribeUserScramCredentialsResult
    if not ctx.allowed(Op.DESCRIBE):
        return R(version=0, throttle_time_ms=0, error_code=Err.CLUSTER_AUTHORIZATION_FAILED,
                 error_message=NOT_AUTHORIZED, results=[])
    users = ctx.cluster.users
    asked = sorted(users) if not req.users else [u.name for u in req.users]
    twice = {n for n, c in Counter(asked).items() if c > 1}
    results, done = [], set()
    for name in asked:
        if name in done:
            continue
        done.add(name)
        if name in twice:
            results.append(Res(user=name, error_code=Err.DUPLICATE_RESOURCE, credential_infos=[],
                               error_message="Cannot describe SCRAM credentials for the same user "
                                             f"twice in a single request: {name}"))
        elif name not in users:
            results.append(Res(user=name, error_code=Err.RESOURCE_NOT_FOUND, credential_infos=[],
                               error_message="Attempt to describe a user credential that does not "
                                             f"exist: {name}"))
        else:
            results.append(Res(user=name, error_code=0, error_message=None, credential_infos=[
                Res.CredentialInfo(mechanism=TYPE_OF[m], iterations=c.iterations)
                for m, c in sorted(users[name].items())]))
    return R(version=0, throttle_time_ms=0, error_code=0, error_message=None, results=results)


def _check(users, name: str, mechanism: int, iterations: int | None = None,
           salt: bytes | None = None, salted: bytes | None = None) -> str:
    """The mechanism's name, or BrokerError as ScramControlManager refuses the alteration."""
    if not name:
        raise BrokerError(Err.UNACCEPTABLE_CREDENTIAL, "Username must not be empty")
    mech = scram.MECHANISM_TYPES.get(mechanism)
    if mech is None:
        raise BrokerError(Err.UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism")
    if iterations is None:                                         # a deletion
        if mech not in users.get(name, {}):
            raise BrokerError(Err.RESOURCE_NOT_FOUND, "Attempt to delete a user credential that "
                                                      "does not exist")
        return mech
    if iterations < scram.MECHANISMS[mech][1]:
        raise BrokerError(Err.UNACCEPTABLE_CREDENTIAL, "Too few iterations")
    if iterations > scram.MAX_ITERATIONS:
        raise BrokerError(Err.UNACCEPTABLE_CREDENTIAL, "Too many iterations")
    if not salt or not salted:
        raise BrokerError(Err.UNACCEPTABLE_CREDENTIAL, "Salt and salted password must not be empty")
    return mech


@handles(ALTER_USER_SCRAM_CREDENTIALS, 0, 0)
async def alter_user_scram_credentials(ctx: RequestContext, req):
    R = RESPONSES[ALTER_USER_SCRAM_CREDENTIALS]
    Res = R.AlterUserScramCredentialsResult
    cluster = ctx.cluster
    changes = [(d.name, d.mechanism, None) for d in req.deletions] + \
              [(u.name, u.mechanism, u) for u in req.upsertions]
    names = list(dict.fromkeys(name for name, _, _ in changes))
    if not ctx.allowed(Op.ALTER):
        return R(version=0, throttle_time_ms=0, results=[
            Res(user=n, error_code=Err.CLUSTER_AUTHORIZATION_FAILED, error_message=NOT_AUTHORIZED)
            for n in names])
    twice = {n for n, c in Counter(name for name, _, _ in changes).items() if c > 1}
    results = []
    for name in names:
        mine = [(mech, u) for n, mech, u in changes if n == name]
        try:
            if name in twice:               # even for two mechanisms, as Kafka 4.4 refuses it
                raise BrokerError(Err.DUPLICATE_RESOURCE, "A user credential cannot be altered "
                                                          "twice in the same request")
            checked = [(_check(cluster.users, name, mech, *(
                (u.iterations, u.salt, u.salted_password) if u else ())), u) for mech, u in mine]
        except BrokerError as e:
            results.append(Res(user=name, error_code=e.code, error_message=e.message))
            continue
        for mech, u in checked:
            cluster.set_credential(name, None if u is None else scram.from_salted(
                mech, u.salted_password, u.salt, u.iterations), mech)
        results.append(Res(user=name, error_code=0, error_message=None))
    return R(version=0, throttle_time_ms=0, results=results)
