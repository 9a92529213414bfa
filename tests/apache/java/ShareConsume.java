// Apache's KafkaShareConsumer (explicit acknowledgement), unmodified, against a Kafka cluster.
//
// args: bootstrap-servers topic group mode produce-count expect-count lock-ms key-prefix
//
// First the group's configs are set (share.auto.offset.reset=earliest, share.record.lock.duration.ms
// = lock-ms) with the Admin client, and produce-count records are produced, keyed
// <key-prefix>0, <key-prefix>1, ... Then, by mode:
// - "two": consumers "a" and "b" of the group accept every record they get, commitSync after each
//   poll (at most 20 records, then 100 ms of work), until expect-count distinct records were accepted; both then poll on for a while, so
//   that a record delivered twice shows;
// - "acks": one consumer releases the record <key-prefix>0 on its first delivery, rejects
//   <key-prefix>1 and accepts everything else, until expect-count records were accepted; then
//   polls on for a while;
// - "hold": one consumer polls until it holds records, prints them, and halts the JVM at once
//   (no acknowledgement, no close: as if killed);
// - "accept": one consumer accepts until expect-count records were accepted, polls on for a
//   while, and closes.
// Bounded by a deadline.
//
// stdout: one JSON object per event: {"delivered": {consumer, partition, offset, key,
// delivery, ack}} (ack: ACCEPT, RELEASE, REJECT or HOLD), {"error": message}.

import com.fasterxml.jackson.databind.ObjectMapper;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

public class ShareConsume {
    static final ObjectMapper JSON = new ObjectMapper();
    static final long DEADLINE_MS = System.currentTimeMillis() + 90_000;
    static final long GRACE_MS = 1_500;     // polling on after the last record: redeliveries show

    static synchronized void emit(String kind, Object value) {
        try {
            System.out.println(JSON.writeValueAsString(Map.of(kind, value)));
            System.out.flush();
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0], topic = args[1], group = args[2], mode = args[3];
        int produceCount = Integer.parseInt(args[4]), expect = Integer.parseInt(args[5]);
        String lockMs = args[6], prefix = args[7];
        configure(bootstrap, group, lockMs);
        produce(bootstrap, topic, produceCount, prefix);
        Set<String> accepted = ConcurrentHashMap.newKeySet();
        AtomicLong doneAt = new AtomicLong(Long.MAX_VALUE);
        if (mode.equals("two")) {
            Thread a = new Thread(() -> consume("a", bootstrap, topic, group, mode, prefix, expect, accepted, doneAt));
            Thread b = new Thread(() -> consume("b", bootstrap, topic, group, mode, prefix, expect, accepted, doneAt));
            a.start();
            b.start();
            a.join();
            b.join();
        } else {
            consume("c", bootstrap, topic, group, mode, prefix, expect, accepted, doneAt);
        }
        if (accepted.size() < expect) {
            emit("error", "accepted " + accepted.size() + " of " + expect + " records before the deadline");
        }
    }

    static long stopAt(long doneAt) {
        return doneAt == Long.MAX_VALUE ? DEADLINE_MS : Math.min(doneAt + GRACE_MS, DEADLINE_MS);
    }

    static void configure(String bootstrap, String group, String lockMs) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            ConfigResource resource = new ConfigResource(ConfigResource.Type.GROUP, group);
            admin.incrementalAlterConfigs(Map.of(resource, List.of(
                new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET),
                new AlterConfigOp(new ConfigEntry("share.record.lock.duration.ms", lockMs), AlterConfigOp.OpType.SET)
            ))).all().get();
        }
    }

    static void produce(String bootstrap, String topic, int count, String prefix) {
        if (count == 0) {
            return;
        }
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        try (KafkaProducer<String, String> producer =
                 new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < count; i++) {
                String key = prefix + i;
                producer.send(new ProducerRecord<>(topic, key, "v" + i), (metadata, error) -> {
                    if (error != null) {
                        emit("error", "produce " + key + ": " + error);
                    }
                });
            }
            producer.flush();
        }
    }

    static void consume(String name, String bootstrap, String topic, String group, String mode, String prefix,
                        int expect, Set<String> accepted, AtomicLong doneAt) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "java-share-" + name);
        props.put(ConsumerConfig.SHARE_ACKNOWLEDGEMENT_MODE_CONFIG, "explicit");
        if (mode.equals("two")) {       // paced, so that neither member takes every record alone
            props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "20");
        }
        KafkaShareConsumer<String, String> consumer =
            new KafkaShareConsumer<>(props, new StringDeserializer(), new StringDeserializer());
        try {
            consumer.subscribe(List.of(topic));
            while (System.currentTimeMillis() < stopAt(doneAt.get())) {
                boolean held = false;
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    int delivery = r.deliveryCount().map(Short::intValue).orElse(-1);
                    AcknowledgeType ack = AcknowledgeType.ACCEPT;
                    String how = "ACCEPT";
                    if (mode.equals("hold")) {
                        how = "HOLD";
                        held = true;
                    } else if (mode.equals("acks") && r.key().equals(prefix + "0") && delivery == 1) {
                        ack = AcknowledgeType.RELEASE;
                        how = "RELEASE";
                    } else if (mode.equals("acks") && r.key().equals(prefix + "1")) {
                        ack = AcknowledgeType.REJECT;
                        how = "REJECT";
                    }
                    emit("delivered", Map.of("consumer", name, "partition", r.partition(), "offset", r.offset(),
                                             "key", r.key(), "delivery", delivery, "ack", how));
                    if (!held) {
                        consumer.acknowledge(r, ack);
                    }
                    if (how.equals("ACCEPT")) {
                        accepted.add(r.key());
                    }
                }
                if (held) {
                    Runtime.getRuntime().halt(0);       // killed while holding the records' locks
                }
                for (var result : consumer.commitSync().entrySet()) {
                    result.getValue().ifPresent(e -> emit("error", "commit " + result.getKey() + ": " + e));
                }
                if (mode.equals("two")) {
                    Thread.sleep(100);
                }
                if (accepted.size() >= expect) {
                    doneAt.compareAndSet(Long.MAX_VALUE, System.currentTimeMillis());
                }
            }
        } catch (Exception e) {
            emit("error", name + ": " + e);
        } finally {
            consumer.close();
        }
    }
}
