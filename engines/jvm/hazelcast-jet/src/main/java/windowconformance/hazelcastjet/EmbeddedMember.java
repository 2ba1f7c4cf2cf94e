package windowconformance.hazelcastjet;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import java.util.UUID;

/**
 * The Hazelcast member the jobs run on, embedded in this JVM and started once: a cluster of one (multicast, TCP/IP and
 * cloud discovery off, a cluster name of its own, listening on the loopback interface only), Jet enabled with one
 * cooperative thread (so every vertex has local parallelism one), no metrics, no phone-home, no logging (stdout is
 * the protocol's).
 */
final class EmbeddedMember {

    private EmbeddedMember() {}

    static HazelcastInstance start() {
        System.setProperty("hazelcast.logging.type", "none");
        Config config = new Config();
        config.setClusterName("window-conformance-" + UUID.randomUUID());
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.shutdownhook.enabled", "false");
        config.setProperty("hazelcast.partition.count", "7");
        config.getNetworkConfig().getInterfaces().setEnabled(true).addInterface("127.0.0.1");
        config.getNetworkConfig().setPortAutoIncrement(true);
        JoinConfig join = config.getNetworkConfig().getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        config.getMetricsConfig().setEnabled(false);
        config.getJetConfig().setEnabled(true).setCooperativeThreadCount(1);
        return Hazelcast.newHazelcastInstance(config);
    }
}
