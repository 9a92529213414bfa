"""How the Java tools name a Kafka protocol error: the exception class Apache's client raises
for the error code and that exception's message, so ``-o plain`` prints what kafka-consumer-groups
prints (``* Group 'g' could not be deleted due to: org.apache.kafka.common.errors.
GroupIdNotFoundException: The group id does not exist.``). The errors kcli's commands can meet;
``tests/render/test_javatext.py`` checks every row against Apache's ``Errors`` in the jars."""

from __future__ import annotations

_PACKAGE = "org.apache.kafka.common."

# code: (NAME, exception class under org.apache.kafka.common., message)
ERRORS: dict[int, tuple[str, str, str]] = {
    -1: ('UNKNOWN_SERVER_ERROR', 'errors.UnknownServerException',
         'The server experienced an unexpected error when processing the request.'),
    1: ('OFFSET_OUT_OF_RANGE', 'errors.OffsetOutOfRangeException',
        'The requested offset is not within the range of offsets maintained by the server.'),
    2: ('CORRUPT_MESSAGE', 'errors.CorruptRecordException',
         'This message has failed its CRC checksum, exceeds the valid size, has a null key for a compacted topic, or '
         'is otherwise corrupt.'),
    3: ('UNKNOWN_TOPIC_OR_PARTITION', 'errors.UnknownTopicOrPartitionException',
         'This server does not host this topic-partition.'),
    5: ('LEADER_NOT_AVAILABLE', 'errors.LeaderNotAvailableException',
         'There is no leader for this topic-partition as we are in the middle of a leadership election.'),
    6: ('NOT_LEADER_OR_FOLLOWER', 'errors.NotLeaderOrFollowerException',
         'For requests intended only for the leader, this error indicates that the broker is not the current leader. '
         'For requests intended for any replica, this error indicates that the broker is not a replica of the topic '
         'partition.'),
    7: ('REQUEST_TIMED_OUT', 'errors.TimeoutException',
         'The request timed out.'),
    10: ('MESSAGE_TOO_LARGE', 'errors.RecordTooLargeException',
         'The request included a message larger than the max message size the server will accept.'),
    13: ('NETWORK_EXCEPTION', 'errors.NetworkException',
         'The server disconnected before a response was received.'),
    14: ('COORDINATOR_LOAD_IN_PROGRESS', 'errors.CoordinatorLoadInProgressException',
         "The coordinator is loading and hence can't process requests."),
    15: ('COORDINATOR_NOT_AVAILABLE', 'errors.CoordinatorNotAvailableException',
         'The coordinator is not available.'),
    16: ('NOT_COORDINATOR', 'errors.NotCoordinatorException',
         'This is not the correct coordinator.'),
    17: ('INVALID_TOPIC_EXCEPTION', 'errors.InvalidTopicException',
         'The request attempted to perform an operation on an invalid topic.'),
    24: ('INVALID_GROUP_ID', 'errors.InvalidGroupIdException',
         'The group id is invalid.'),
    25: ('UNKNOWN_MEMBER_ID', 'errors.UnknownMemberIdException',
         'The coordinator is not aware of this member.'),
    29: ('TOPIC_AUTHORIZATION_FAILED', 'errors.TopicAuthorizationException',
         'Topic authorization failed.'),
    30: ('GROUP_AUTHORIZATION_FAILED', 'errors.GroupAuthorizationException',
         'Group authorization failed.'),
    31: ('CLUSTER_AUTHORIZATION_FAILED', 'errors.ClusterAuthorizationException',
         'Cluster authorization failed.'),
    35: ('UNSUPPORTED_VERSION', 'errors.UnsupportedVersionException',
         'The version of API is not supported.'),
    36: ('TOPIC_ALREADY_EXISTS', 'errors.TopicExistsException',
         'Topic with this name already exists.'),
    37: ('INVALID_PARTITIONS', 'errors.InvalidPartitionsException',
         'Number of partitions is below 1.'),
    38: ('INVALID_REPLICATION_FACTOR', 'errors.InvalidReplicationFactorException',
         'Replication factor is below 1 or larger than the number of available brokers.'),
    39: ('INVALID_REPLICA_ASSIGNMENT', 'errors.InvalidReplicaAssignmentException',
         'Replica assignment is invalid.'),
    40: ('INVALID_CONFIG', 'errors.InvalidConfigurationException',
         'Configuration is invalid.'),
    41: ('NOT_CONTROLLER', 'errors.NotControllerException',
         'This is not the correct controller for this cluster.'),
    42: ('INVALID_REQUEST', 'errors.InvalidRequestException',
         'This most likely occurs because of a request being malformed by the client library or the message was sent '
         'to an incompatible broker. See the broker logs for more details.'),
    44: ('POLICY_VIOLATION', 'errors.PolicyViolationException',
         'Request parameters do not satisfy the configured policy.'),
    56: ('KAFKA_STORAGE_ERROR', 'errors.KafkaStorageException',
         'Disk error when trying to access log file on the disk.'),
    58: ('SASL_AUTHENTICATION_FAILED', 'errors.SaslAuthenticationException',
         'SASL Authentication failed.'),
    68: ('NON_EMPTY_GROUP', 'errors.GroupNotEmptyException',
         'The group is not empty.'),
    69: ('GROUP_ID_NOT_FOUND', 'errors.GroupIdNotFoundException',
         'The group id does not exist.'),
    80: ('PREFERRED_LEADER_NOT_AVAILABLE', 'errors.PreferredLeaderNotAvailableException',
         'The preferred leader was not available.'),
    83: ('ELIGIBLE_LEADERS_NOT_AVAILABLE', 'errors.EligibleLeadersNotAvailableException',
         'Eligible topic partition leaders are not available.'),
    84: ('ELECTION_NOT_NEEDED', 'errors.ElectionNotNeededException',
         'Leader election not needed for topic partition.'),
    85: ('NO_REASSIGNMENT_IN_PROGRESS', 'errors.NoReassignmentInProgressException',
         'No partition reassignment is in progress.'),
    86: ('GROUP_SUBSCRIBED_TO_TOPIC', 'errors.GroupSubscribedToTopicException',
         'Deleting offsets of a topic is forbidden while the consumer group is actively subscribed to it.'),
    87: ('INVALID_RECORD', 'InvalidRecordException',
         'This record has failed the validation on broker and hence will be rejected.'),
    102: ('BROKER_ID_NOT_REGISTERED', 'errors.BrokerIdNotRegisteredException',
          'The given broker ID was not registered.'),
    136: ('CONTROLLER_ID_NOT_REGISTERED', 'errors.ControllerIdNotRegisteredException',
          'The given controller ID was not registered.'),
}


def exception_with(code: int, message: str | None, fallback: str | None = None) -> str:
    """The Java exception's ``toString()`` for ``code`` made with the broker's ``message`` (its
    default message where none came), as ``Errors.exception(message)`` makes it; for an error not
    listed, ``fallback`` (default: the message)."""
    known = ERRORS.get(code)
    if known is None:
        return fallback if fallback is not None else message or ""
    return f"{_PACKAGE}{known[1]}: {message or known[2]}"


def exception_text(code: int, fallback: str) -> str:
    """The Java exception's ``toString()`` for ``code``; ``fallback`` for an error not listed."""
    known = ERRORS.get(code)
    return f"{_PACKAGE}{known[1]}: {known[2]}" if known else fallback


def exception_class(code: int) -> str | None:
    """The class of the exception ``Errors.forCode(code).exception()`` is (None for 0, NONE; an
    error not listed: UnknownServerException's, as Errors names an unknown code)."""
    if not code:
        return None
    return _PACKAGE + ERRORS.get(code, ERRORS[-1])[1]


def message_of(code: int, message: str) -> str:
    """The message of the exception Apache's client raises for ``code`` with the broker's
    ``message`` (Errors.exception(message)): that message, else the error's default one."""
    known = ERRORS.get(code)
    return message or (known[2] if known else "")

