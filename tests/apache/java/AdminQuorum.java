// The Java AdminClient's describeMetadataQuorum (DescribeQuorum, API key 55), describeFeatures
// (ApiVersions) and updateFeatures (UpdateFeatures, API key 57), as JSON, one line per step.
// args: bootstrap-servers, then steps:
//   quorum                                    -> {"leaderId", "leaderEpoch", "highWatermark",
//                                                 "voters": [[id, directoryId, logEndOffset,
//                                                 lastFetch, lastCaughtUp]], "observers": [...],
//                                                 "nodes": {id: ["LISTENER://host:port"]}}
//   features                                  -> {"finalized": {name: level}, "supported":
//                                                 {name: [min, max]}, "epoch"}
//   update:NAME=LEVEL/TYPE[,NAME=LEVEL/TYPE...][:validate]
//                                             -> {"ok": true} or {"error", "message"}
//     TYPE: upgrade, safe, unsafe (FeatureUpdate.UpgradeType)

import com.fasterxml.jackson.databind.ObjectMapper;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.FeatureMetadata;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.clients.admin.QuorumInfo;
import org.apache.kafka.clients.admin.UpdateFeaturesOptions;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

public class AdminQuorum {
    static List<Object> replicas(List<QuorumInfo.ReplicaState> states) {
        List<Object> out = new ArrayList<>();
        for (QuorumInfo.ReplicaState r : states)
            out.add(List.of(r.replicaId(), r.replicaDirectoryId().toString(), r.logEndOffset(),
                            r.lastFetchTimestamp().orElse(-1), r.lastCaughtUpTimestamp().orElse(-1)));
        return out;
    }

    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        ObjectMapper json = new ObjectMapper();
        try (Admin admin = Admin.create(props)) {
            for (int i = 1; i < args.length; i++) {
                Map<String, Object> out = new LinkedHashMap<>();
                String step = args[i];
                if (step.equals("quorum")) {
                    QuorumInfo q = admin.describeMetadataQuorum().quorumInfo().get(30, TimeUnit.SECONDS);
                    out.put("leaderId", q.leaderId());
                    out.put("leaderEpoch", q.leaderEpoch());
                    out.put("highWatermark", q.highWatermark());
                    out.put("voters", replicas(q.voters()));
                    out.put("observers", replicas(q.observers()));
                    Map<String, Object> nodes = new TreeMap<>();
                    q.nodes().forEach((id, n) -> nodes.put(String.valueOf(id),
                        n.endpoints().stream().map(Object::toString).toList()));
                    out.put("nodes", nodes);
                } else if (step.equals("features")) {
                    FeatureMetadata f = admin.describeFeatures().featureMetadata().get(30, TimeUnit.SECONDS);
                    Map<String, Object> finalized = new TreeMap<>();
                    f.finalizedFeatures().forEach((name, r) -> finalized.put(name, r.maxVersionLevel()));
                    Map<String, Object> supported = new TreeMap<>();
                    f.supportedFeatures().forEach((name, r) -> supported.put(name, List.of(r.minVersion(), r.maxVersion())));
                    out.put("finalized", finalized);
                    out.put("supported", supported);
                    out.put("epoch", f.finalizedFeaturesEpoch().orElse(-1L));
                } else if (step.startsWith("update:")) {
                    String[] parts = step.split(":");
                    Map<String, FeatureUpdate> updates = new LinkedHashMap<>();
                    for (String u : parts[1].split(",")) {
                        String[] nv = u.split("[=/]");
                        updates.put(nv[0], new FeatureUpdate(Short.parseShort(nv[1]), switch (nv[2]) {
                            case "upgrade" -> FeatureUpdate.UpgradeType.UPGRADE;
                            case "safe" -> FeatureUpdate.UpgradeType.SAFE_DOWNGRADE;
                            case "unsafe" -> FeatureUpdate.UpgradeType.UNSAFE_DOWNGRADE;
                            default -> throw new IllegalArgumentException(u);
                        }));
                    }
                    UpdateFeaturesOptions options = new UpdateFeaturesOptions()
                        .validateOnly(parts.length > 2 && parts[2].equals("validate"));
                    try {
                        admin.updateFeatures(updates, options).all().get(30, TimeUnit.SECONDS);
                        out.put("ok", true);
                    } catch (ExecutionException e) {
                        out.put("error", e.getCause().getClass().getSimpleName());
                        out.put("message", e.getCause().getMessage());
                    }
                } else {
                    throw new IllegalArgumentException(step);
                }
                System.out.println(json.writeValueAsString(out));
            }
        }
    }
}
