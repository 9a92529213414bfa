// Prints every Kafka protocol error as Apache's client knows it: code, name, the exception
// class it raises and that exception's message, tab-separated (for tests/render/test_javatext.py).
import org.apache.kafka.common.protocol.Errors;

public class KafkaErrors {
    public static void main(String[] args) {
        for (Errors e : Errors.values()) {
            String cls = e.exception() == null ? "-" : e.exception().getClass().getName();
            System.out.println(e.code() + "\t" + e.name() + "\t" + cls + "\t" + e.message());
        }
    }
}
