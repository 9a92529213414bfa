// Java's transactional producer and read_committed / read_uncommitted consumers against a Kafka
// cluster, in one JVM: commit, abort, fencing by a second producer of the same transactional.id,
// a transaction timeout, and sendOffsetsToTransaction.
//
// args: bootstrap-servers topic transactional-id-prefix group
//
// The topic has 2 partitions; values go to partition (index % 2). In order:
// - producer "a" (id prefix-1): commits c1 c2; aborts a1; sends "open" and is then fenced by
//   producer "b" (same id) initialising; a's commit then fails;
// - producer "b": commits c3, and the offset 5 of partition 0 for the group;
// - producer "c" (id prefix-2, transaction.timeout.ms 2000): sends t1 and waits until the
//   coordinator no longer lists the transaction as Ongoing (its timeout aborted it); its commit
//   then fails;
// - a read_committed and a read_uncommitted consumer read the topic from the start to its end
//   (as each isolation level's end offsets give it).
//
// stdout: one JSON object per event: {"failed": {producer, exception}} (the exception's class),
// {"read": {isolation, values}} (sorted), {"offsets": {partition: offset}}, {"error": message}.

import com.fasterxml.jackson.databind.ObjectMapper;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

public class Transactions {
    static final ObjectMapper JSON = new ObjectMapper();
    static final long DEADLINE_MS = System.currentTimeMillis() + 90_000;

    static void emit(String kind, Object value) {
        try {
            System.out.println(JSON.writeValueAsString(Map.of(kind, value)));
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    static KafkaProducer<String, String> producer(String bootstrap, String id, int timeoutMs) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, id);
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, timeoutMs);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        KafkaProducer<String, String> producer = new KafkaProducer<>(p);
        producer.initTransactions();
        return producer;
    }

    static void send(KafkaProducer<String, String> p, String topic, String... values) throws Exception {
        for (String v : values) {
            p.send(new ProducerRecord<>(topic, Integer.parseInt(v.replaceAll("\\D", "0")) % 2, v, v)).get();
        }
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0], topic = args[1], prefix = args[2], group = args[3];
        Properties ap = new Properties();
        ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(ap)) {
            KafkaProducer<String, String> a = producer(bootstrap, prefix + "-1", 60_000);
            a.beginTransaction();
            send(a, topic, "c1", "c2");
            a.commitTransaction();
            a.beginTransaction();
            send(a, topic, "a1");
            a.abortTransaction();
            a.beginTransaction();
            send(a, topic, "open");

            KafkaProducer<String, String> b = producer(bootstrap, prefix + "-1", 60_000);
            try {
                a.commitTransaction();
                emit("error", "producer a committed after it was fenced");
            } catch (Exception e) {
                emit("failed", Map.of("producer", "a", "exception", e.getClass().getSimpleName()));
            }
            a.close(Duration.ZERO);
            b.beginTransaction();
            send(b, topic, "c3");
            b.sendOffsetsToTransaction(Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(5)),
                                       new ConsumerGroupMetadata(group));
            b.commitTransaction();
            b.close();

            KafkaProducer<String, String> c = producer(bootstrap, prefix + "-2", 2_000);
            c.beginTransaction();
            send(c, topic, "t1");
            while (System.currentTimeMillis() < DEADLINE_MS) {
                TransactionDescription d = admin.describeTransactions(List.of(prefix + "-2"))
                    .description(prefix + "-2").get();
                if (d.state() != TransactionState.ONGOING) {
                    break;
                }
                Thread.sleep(200);
            }
            try {
                c.commitTransaction();
                emit("error", "producer c committed after its transaction timed out");
            } catch (Exception e) {
                emit("failed", Map.of("producer", "c", "exception", e.getClass().getSimpleName()));
            }
            c.close(Duration.ZERO);

            for (String isolation : List.of("read_committed", "read_uncommitted")) {
                emit("read", Map.of("isolation", isolation, "values", read(bootstrap, topic, isolation)));
            }
            Map<String, Long> offsets = new TreeMap<>();
            admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get()
                .forEach((tp, om) -> offsets.put(Integer.toString(tp.partition()), om.offset()));
            emit("offsets", offsets);
        } catch (Exception e) {
            emit("error", e.toString());
        }
    }

    static List<String> read(String bootstrap, String topic, String isolation) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
            List<TopicPartition> tps = List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1));
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            Map<TopicPartition, Long> ends = consumer.endOffsets(tps);
            while (System.currentTimeMillis() < DEADLINE_MS
                   && tps.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(r.value());
                }
            }
        }
        Collections.sort(values);
        return values;
    }
}
