package windowconformance.hazelcastjet;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.jet.JetService;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import windowconformance.protocol.Contract;
import windowconformance.protocol.Engine;
import windowconformance.protocol.Observation;
import windowconformance.protocol.Server;
import windowconformance.protocol.WindowCase;

/**
 * Hazelcast Jet (Hazelcast 5.7) as an engine under test, a process speaking {@code window-process/1}: one embedded
 * member for the whole process ({@link EmbeddedMember}), and each case a light job of its own, the pipeline a Jet
 * user writes for it ({@link JetJob}), run to its end ({@link CaseRun}). The member starts beside the hello (seconds,
 * more on a busy machine), and the first request waits for it.
 */
public final class HazelcastJetEngine implements Engine {

    private final CompletableFuture<HazelcastInstance> member;
    private final Contract contract;

    private HazelcastJetEngine(CompletableFuture<HazelcastInstance> member, Contract contract) {
        this.member = member;
        this.contract = contract;
    }

    /** {@code HazelcastJetEngine CONTRACT}: the contract's JSON ({@link Contract}). */
    public static void main(String[] args) throws Exception {
        Contract contract = Contract.fromJson(args[0]);
        CompletableFuture<HazelcastInstance> member = CompletableFuture.supplyAsync(EmbeddedMember::start);
        try {
            Server.serve(new HazelcastJetEngine(member, contract));
        } finally {
            member.thenAccept(started -> started.getLifecycleService().terminate());
        }
    }

    @Override
    public String name() {
        return "hazelcast-jet";
    }

    @Override
    public Set<String> features() {
        return JetJob.TRANSLATED.features();
    }

    @Override
    public List<Observation> run(List<WindowCase> cases) {
        JetService jet = member.join().getJet();
        List<Observation> observations = new ArrayList<>();
        for (WindowCase c : cases) {
            observations.add(CaseRun.run(c, jet, contract));
        }
        return observations;
    }
}
