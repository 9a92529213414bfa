// A Java producer and two Java consumers of one group, in one JVM, against a Kafka cluster.
//
// args: bootstrap-servers topic group group.protocol(classic|consumer) record-count
//
// The producer (idempotent, acks=all) sends record-count records with keys k0, k1, ...: the
// first half, then, once the second consumer has partitions, the second half. Consumer "a"
// starts at once, consumer "b" once "a" has a record, so the group rebalances while records
// flow. Each consumer commits synchronously after every batch it processed, and in its
// revocation callback, and reads until the group has read record-count records; both then go on
// polling for a while, so that a record read twice shows. Bounded by a deadline.
//
// stdout: one JSON object per event: {"produced": {partition, offset, key}},
// {"consumed": {consumer, partition, offset, key, value}}, {"assigned": {consumer, partitions}},
// {"error": message}.

import com.fasterxml.jackson.databind.ObjectMapper;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

public class ProduceConsume {
    static final ObjectMapper JSON = new ObjectMapper();
    static final long DEADLINE_MS = System.currentTimeMillis() + 60_000;
    static final long GRACE_MS = 1_500;     // polling on after the last record: duplicates show

    static synchronized void emit(String kind, Object value) {
        try {
            System.out.println(JSON.writeValueAsString(Map.of(kind, value)));
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0], topic = args[1], group = args[2], protocol = args[3];
        int count = Integer.parseInt(args[4]);
        AtomicInteger consumed = new AtomicInteger();
        AtomicLong allReadAt = new AtomicLong(Long.MAX_VALUE);
        CountDownLatch firstRecord = new CountDownLatch(1);
        CountDownLatch bAssigned = new CountDownLatch(1);

        Thread a = new Thread(() -> consume("a", bootstrap, topic, group, protocol, count, consumed,
                                           allReadAt, firstRecord, null));
        Thread b = new Thread(() -> consume("b", bootstrap, topic, group, protocol, count, consumed,
                                           allReadAt, null, bAssigned));
        Thread producer = new Thread(() -> produce(bootstrap, topic, count, bAssigned));
        a.start();
        producer.start();
        if (!firstRecord.await(30, TimeUnit.SECONDS)) {
            emit("error", "consumer a read nothing within 30 s");
        }
        b.start();
        for (Thread t : List.of(producer, a, b)) {
            t.join(Math.max(DEADLINE_MS + 15_000 - System.currentTimeMillis(), 1));
        }
    }

    static long stopAt(long allReadAt) {
        return allReadAt == Long.MAX_VALUE ? DEADLINE_MS : Math.min(allReadAt + GRACE_MS, DEADLINE_MS);
    }

    static void produce(String bootstrap, String topic, int count, CountDownLatch bAssigned) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        try (KafkaProducer<String, String> producer =
                 new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < count; i++) {
                if (i == count / 2) {
                    producer.flush();
                    if (!bAssigned.await(30, TimeUnit.SECONDS)) {
                        emit("error", "consumer b got no partitions within 30 s");
                    }
                }
                String key = "k" + i;
                producer.send(new ProducerRecord<>(topic, key, "v" + i), (metadata, error) -> {
                    if (error != null) {
                        emit("error", "produce " + key + ": " + error);
                    } else {
                        emit("produced", Map.of("partition", metadata.partition(),
                                                "offset", metadata.offset(), "key", key));
                    }
                });
            }
        } catch (Exception e) {
            emit("error", "producer: " + e);
        }
    }

    static void consume(String name, String bootstrap, String topic, String group, String protocol,
                        int count, AtomicInteger consumed, AtomicLong allReadAt,
                        CountDownLatch firstRecord, CountDownLatch assigned) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "java-" + name);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        if (protocol.equals("classic")) {   // the consumer protocol takes these from the broker
            props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "300");
            props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "6000");
        }
        try (KafkaConsumer<String, String> consumer =
                 new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    consumer.commitSync();      // what was processed, before another member reads on
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    emit("assigned", Map.of("consumer", name, "partitions",
                                            partitions.stream().map(TopicPartition::partition).toList()));
                    if (assigned != null && !partitions.isEmpty()) {
                        assigned.countDown();
                    }
                }
            });
            while (System.currentTimeMillis() < stopAt(allReadAt.get())) {
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(100));
                for (ConsumerRecord<String, String> r : records) {
                    emit("consumed", Map.of("consumer", name, "partition", r.partition(),
                                            "offset", r.offset(), "key", r.key(), "value", r.value()));
                    if (consumed.incrementAndGet() == count) {
                        allReadAt.set(System.currentTimeMillis());
                    }
                    if (firstRecord != null) {
                        firstRecord.countDown();
                    }
                }
                if (!records.isEmpty()) {
                    try {
                        consumer.commitSync();
                    } catch (RebalanceInProgressException e) {
                        // the revocation callback commits these offsets before the rebalance ends
                    }
                }
            }
        } catch (Exception e) {
            emit("error", "consumer " + name + ": " + e);
        }
    }
}
