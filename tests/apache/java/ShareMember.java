// One member of a share group (KIP-932), an unmodified KafkaShareConsumer in explicit
// acknowledgement mode, against a Kafka cluster.
//
// args: bootstrap-servers topic group below expected
//
// The group's share.auto.offset.reset is set to earliest first (IncrementalAlterConfigs, type
// GROUP), so the member reads the records already there. It accepts every record at an offset
// below `below` (on every partition) and releases the others (so they stay for the group's next
// member), committing the acknowledgements after each poll; once it has accepted `expected`
// records it prints {"accepted": n}. It then stays a member without polling again (the consumer's
// background thread heartbeats), until its stdin closes; then it leaves the group (close) and
// prints {"closed": true}. Bounded by a deadline. Polling on would release the records at or past
// `below` again and again: at the delivery count limit they are archived and the group's start
// offset moves past them.
//
// stdout: one JSON object per line.

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;

public class ShareMember {
    static final long DEADLINE_MS = System.currentTimeMillis() + 180_000;

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0], topic = args[1], group = args[2];
        long below = Long.parseLong(args[3]);
        int expected = Integer.parseInt(args[4]);
        Properties admin = new Properties();
        admin.put("bootstrap.servers", bootstrap);
        try (Admin a = Admin.create(admin)) {
            ConfigResource resource = new ConfigResource(ConfigResource.Type.GROUP, group);
            a.incrementalAlterConfigs(Map.of(resource, List.of(new AlterConfigOp(
                new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET)))).all().get();
        }
        AtomicBoolean stop = new AtomicBoolean();
        Thread stdin = new Thread(() -> {
            try {
                while (System.in.read() >= 0) { }
            } catch (Exception ignored) { }
            stop.set(true);
        });
        stdin.setDaemon(true);
        stdin.start();

        Properties props = new Properties();
        props.put("bootstrap.servers", bootstrap);
        props.put("group.id", group);
        props.put("client.id", group + "-member");
        props.put("share.acknowledgement.mode", "explicit");
        props.put("key.deserializer", StringDeserializer.class.getName());
        props.put("value.deserializer", StringDeserializer.class.getName());
        int accepted = 0;
        boolean told = false;
        try (KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(props)) {
            consumer.subscribe(List.of(topic));
            while (!stop.get() && System.currentTimeMillis() < DEADLINE_MS) {
                if (told) {
                    Thread.sleep(100);
                    continue;
                }
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.offset() < below) {
                        consumer.acknowledge(r, AcknowledgeType.ACCEPT);
                        accepted++;
                    } else {
                        consumer.acknowledge(r, AcknowledgeType.RELEASE);
                    }
                }
                consumer.commitSync();
                if (!told && accepted >= expected) {
                    System.out.println("{\"accepted\": " + accepted + "}");
                    System.out.flush();
                    told = true;
                }
            }
        }
        System.out.println("{\"closed\": true}");
    }
}
