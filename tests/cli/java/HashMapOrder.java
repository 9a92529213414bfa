// Prints the iteration order of java.util.HashMap for keys read from stdin (one per line), as
// kcli.javaorder predicts it. Usage: HashMapOrder strings|partitions default|sized|copy
// For "partitions" each line is "topic<TAB>partition" and keys are Kafka TopicPartitions.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

public class HashMapOrder {
    public static void main(String[] args) throws Exception {
        List<Object> keys = new ArrayList<>();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            if (args[0].equals("partitions")) {
                String[] parts = line.split("\t");
                keys.add(new TopicPartition(parts[0], Integer.parseInt(parts[1])));
            } else {
                keys.add(line);
            }
        }
        Map<Object, Integer> map = args[1].equals("default") ? new HashMap<>() : new HashMap<>(keys.size());
        for (Object key : keys) map.put(key, 0);
        if (args[1].equals("copy")) map = new HashMap<>(map);
        for (Object key : map.keySet()) {
            System.out.println(key instanceof TopicPartition
                ? ((TopicPartition) key).topic() + "\t" + ((TopicPartition) key).partition()
                : key.toString());
        }
    }
}
