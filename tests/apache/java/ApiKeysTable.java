// The Java client's API keys, as kafka-cluster api-versions (NodeApiVersions.toString) reads them:
// one line per org.apache.kafka.common.protocol.ApiKeys value, tab-separated:
// id, name, oldestVersion, latestVersion, whether ApiKeys.clientApis() has it.

import org.apache.kafka.common.protocol.ApiKeys;

public class ApiKeysTable {
    public static void main(String[] args) {
        for (ApiKeys key : ApiKeys.values()) {
            System.out.println(key.id + "\t" + key.name + "\t" + key.oldestVersion() + "\t" + key.latestVersion()
                + "\t" + ApiKeys.clientApis().contains(key));
        }
    }
}
