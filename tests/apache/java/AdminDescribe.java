// What the Java AdminClient's describeTopics and describeConsumerGroups return, as JSON.
//
// args: bootstrap-servers topics(comma-separated) groups(comma-separated)
// stdout: {"topics": [{name, id, internal, partitions: [{partition, leader, replicas, isr}]}],
//          "groups": [{id, simple, type, state, coordinator, assignor, groupEpoch,
//                      targetAssignmentEpoch, members: [{memberId, instanceId, clientId, host,
//                      assignment, targetAssignment, memberEpoch}]}]}
// (partitions as "topic:partition"; an absent optional value is null).

import com.fasterxml.jackson.databind.ObjectMapper;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

public class AdminDescribe {
    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        List<String> topics = List.of(args[1].split(","));
        List<String> groups = List.of(args[2].split(","));
        Map<String, Object> out = new LinkedHashMap<>();
        try (Admin admin = Admin.create(props)) {
            List<Object> described = new ArrayList<>();
            Map<String, TopicDescription> byName =
                admin.describeTopics(topics).allTopicNames().get(30, TimeUnit.SECONDS);
            for (String name : topics) {
                described.add(topic(byName.get(name)));
            }
            out.put("topics", described);
            described = new ArrayList<>();
            Map<String, ConsumerGroupDescription> byId =
                admin.describeConsumerGroups(groups).all().get(30, TimeUnit.SECONDS);
            for (String id : groups) {
                described.add(group(byId.get(id)));
            }
            out.put("groups", described);
        }
        System.out.println(new ObjectMapper().writeValueAsString(out));
    }

    static Map<String, Object> topic(TopicDescription t) {
        List<Object> partitions = new ArrayList<>();
        for (TopicPartitionInfo p : t.partitions()) {
            Map<String, Object> info = new LinkedHashMap<>();
            info.put("partition", p.partition());
            info.put("leader", p.leader() == null ? -1 : p.leader().id());
            info.put("replicas", p.replicas().stream().map(Node::id).toList());
            info.put("isr", p.isr().stream().map(Node::id).toList());
            partitions.add(info);
        }
        Map<String, Object> info = new LinkedHashMap<>();
        info.put("name", t.name());
        info.put("id", t.topicId().toString());
        info.put("internal", t.isInternal());
        info.put("partitions", partitions);
        return info;
    }

    static Map<String, Object> group(ConsumerGroupDescription g) {
        List<Object> members = new ArrayList<>();
        for (MemberDescription m : g.members()) {
            Map<String, Object> info = new LinkedHashMap<>();
            info.put("memberId", m.consumerId());
            info.put("instanceId", m.groupInstanceId().orElse(null));
            info.put("clientId", m.clientId());
            info.put("host", m.host());
            info.put("assignment", names(m.assignment().topicPartitions()));
            info.put("targetAssignment",
                     m.targetAssignment().map(a -> names(a.topicPartitions())).orElse(null));
            info.put("memberEpoch", m.memberEpoch().orElse(null));
            members.add(info);
        }
        Map<String, Object> info = new LinkedHashMap<>();
        info.put("id", g.groupId());
        info.put("simple", g.isSimpleConsumerGroup());
        info.put("type", g.type().toString());
        info.put("state", g.groupState().toString());
        info.put("coordinator", g.coordinator() == null ? null : g.coordinator().id());
        info.put("assignor", g.partitionAssignor());
        info.put("groupEpoch", g.groupEpoch().orElse(null));
        info.put("targetAssignmentEpoch", g.targetAssignmentEpoch().orElse(null));
        info.put("members", members);
        return info;
    }

    static List<String> names(Collection<TopicPartition> partitions) {
        return partitions.stream().map(tp -> tp.topic() + ":" + tp.partition()).sorted().toList();
    }
}
