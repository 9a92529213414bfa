// What the Java AdminClient's describeCluster returns (it sends DescribeCluster, API key 60), as
// JSON. args: bootstrap-servers. stdout: {"clusterId", "controller", "nodes": [[id, host, port]]}.

import com.fasterxml.jackson.databind.ObjectMapper;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.common.Node;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

public class AdminCluster {
    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        Map<String, Object> out = new LinkedHashMap<>();
        try (Admin admin = Admin.create(props)) {
            DescribeClusterResult r = admin.describeCluster();
            out.put("clusterId", r.clusterId().get(30, TimeUnit.SECONDS));
            Node controller = r.controller().get(30, TimeUnit.SECONDS);
            out.put("controller", controller == null ? null : controller.id());
            List<Object> nodes = r.nodes().get(30, TimeUnit.SECONDS).stream()
                .sorted((a, b) -> Integer.compare(a.id(), b.id()))
                .map(n -> (Object) List.of(n.id(), n.host(), n.port())).toList();
            out.put("nodes", nodes);
        }
        System.out.println(new ObjectMapper().writeValueAsString(out));
    }
}
