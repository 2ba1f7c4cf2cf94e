package windowconformance;

import java.util.List;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.operators.AbstractUdfStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.SimpleOperatorFactory;
import org.apache.flink.streaming.api.operators.SimpleUdfStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.StreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.streaming.api.transformations.OneInputTransformation;

/**
 * Puts the window operator that {@code WindowedStream.process} built on the case's processing-time
 * clock ({@link CaseProcessingTime}) instead of its task's wall clock.
 *
 * <p>Where the operator's clock comes from: {@code StreamOperatorFactoryUtil.createOperator} creates
 * the task's processing-time service for the operator and passes it to the operator's factory in
 * {@code StreamOperatorParameters}, {@code SimpleOperatorFactory.createStreamOperator} sets it on the
 * operator, and {@code AbstractStreamOperator.initializeState} passes
 * {@code getProcessingTimeService()} to the {@code InternalTimeServiceManager}, whose
 * {@code InternalTimerServiceImpl} reads the time and registers its timers there. So a factory that
 * hands over the case's service instead changes the window operator's clock and nothing else: the
 * operator, its timer service, heap state backend and trigger contexts are Flink's own, and the
 * other operators of the chain keep the task's service. (The alternatives: a
 * {@code OneInputStreamTask} built with a {@code TimerService} of ours would move every operator's
 * clock and defer each timer through the mailbox; driving the operator outside a MiniCluster needs
 * the test harness of Flink's test jars.)
 *
 * <p>The window is still specified through the public API (so Flink checks the specification as a
 * user's job would): its transformation is replaced by one that wraps the same operator.
 */
final class CaseClockWindowOperator {
    private CaseClockWindowOperator() {}

    /**
     * The stream of {@code windowed}'s operator on the case's clock: {@code windowed}'s
     * transformation, just added by {@code WindowedStream.process}, leaves the job.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static <OUT> SingleOutputStreamOperator<OUT> onCaseClock(
            KeyedStream<Element, String> keyed, SingleOutputStreamOperator<OUT> windowed, TypeInformation<OUT> type,
            CaseRun run) {
        OneInputTransformation<Element, OUT> built = (OneInputTransformation<Element, OUT>) windowed.getTransformation();
        AbstractUdfStreamOperator operator =
                (AbstractUdfStreamOperator) ((SimpleOperatorFactory<OUT>) built.getOperatorFactory()).getOperator();
        List<Transformation<?>> transformations = windowed.getExecutionEnvironment().getTransformations();
        transformations.remove(built);
        return keyed.transform(built.getName(), type, new Factory<>(operator, run.id));
    }

    /** The operator's own factory, except for the processing-time service it hands over. */
    private static final class Factory<OUT> extends SimpleUdfStreamOperatorFactory<OUT>
            implements OneInputStreamOperatorFactory<Element, OUT> {
        private final int caseId;

        Factory(AbstractUdfStreamOperator<OUT, ?> operator, int caseId) {
            super(operator);
            this.caseId = caseId;
        }

        @Override
        public <T extends StreamOperator<OUT>> T createStreamOperator(StreamOperatorParameters<OUT> task) {
            CaseProcessingTime caseService = new CaseProcessingTime();
            CaseRun.get(caseId).processingTime = caseService;
            // Flink 2.x's SimpleOperatorFactory takes the service from the parameters, Flink 1.20's from its own
            // field, which the task sets (ProcessingTimeServiceAware) before it creates the operator.
            processingTimeService = caseService;
            return super.createStreamOperator(new StreamOperatorParameters<>(task.getContainingTask(),
                    task.getStreamConfig(), task.getOutput(), () -> caseService, task.getOperatorEventDispatcher(),
                    task.getMailboxExecutor()));
        }
    }
}
