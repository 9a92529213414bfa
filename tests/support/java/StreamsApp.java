import java.util.Properties;
import java.util.concurrent.CountDownLatch;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;

/**
 * A tiny Kafka Streams application for kcli's tests: it joins a streams group (group.protocol=streams)
 * and copies INPUT to OUTPUT upper-cased. Arguments: BOOTSTRAP APPLICATION-ID INPUT OUTPUT STATE-DIR
 * [copy|count [GUARANTEE]]; with "count", it counts INPUT's values instead (OUTPUT: "value=count"): a
 * stateful topology with a repartition topic and a changelog topic, both internal topics the group's
 * coordinator creates. GUARANTEE: processing.guarantee (default at_least_once; exactly_once_v2).
 * Prints "RUNNING" once the application runs; stops (leaving the group) on SIGTERM.
 */
public class StreamsApp {
    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, args[1]);
        props.put(StreamsConfig.STATE_DIR_CONFIG, args[4]);
        props.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, "streams");
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "100");
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.consumerPrefix("auto.offset.reset"), "earliest");
        if (args.length > 6) {
            props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, args[6]);
        }

        StreamsBuilder builder = new StreamsBuilder();
        if (args.length > 5 && args[5].equals("count")) {
            // stateful: a repartition topic (re-keyed by value) and a changelog for the count store
            builder.<String, String>stream(args[2]).groupBy((k, v) -> v).count().toStream()
                .mapValues((k, n) -> k + "=" + n).to(args[3]);
        } else {
            builder.<String, String>stream(args[2]).mapValues(v -> v == null ? null : v.toUpperCase()).to(args[3]);
        }
        KafkaStreams streams = new KafkaStreams(builder.build(), props);
        CountDownLatch stopped = new CountDownLatch(1);
        streams.setStateListener((now, before) -> {
            if (now == KafkaStreams.State.RUNNING) {
                System.out.println("RUNNING");
                System.out.flush();
            }
        });
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            streams.close();
            stopped.countDown();
        }));
        streams.start();
        stopped.await();
    }
}
