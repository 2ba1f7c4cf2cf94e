package windowconformance;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.lib.util.IteratorSourceEnumerator;
import org.apache.flink.api.connector.source.lib.util.IteratorSourceReader;
import org.apache.flink.api.connector.source.lib.util.IteratorSourceSplit;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * A bounded source of the lines of this process's standard input, in order: one split, read by one reader
 * (parallelism 1) as it comes, so the input is never held whole. Built from Flink's own iterator source
 * ({@code IteratorSourceReader}, {@code IteratorSourceEnumerator}, as {@code NumberSequenceSource} is); standard
 * input cannot be read again, so the job runs without checkpoints.
 */
final class StdinLines implements Source<String, StdinLines.Split, Collection<StdinLines.Split>>,
        ResultTypeQueryable<String> {

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.BOUNDED;
    }

    @Override
    public SourceReader<String, Split> createReader(SourceReaderContext context) {
        return new IteratorSourceReader<>(context);
    }

    @Override
    public SplitEnumerator<Split, Collection<Split>> createEnumerator(SplitEnumeratorContext<Split> context) {
        return new IteratorSourceEnumerator<>(context, List.of(new Split()));
    }

    @Override
    public SplitEnumerator<Split, Collection<Split>> restoreEnumerator(SplitEnumeratorContext<Split> context,
                                                                       Collection<Split> splits) {
        return new IteratorSourceEnumerator<>(context, splits);
    }

    @Override
    public SimpleVersionedSerializer<Split> getSplitSerializer() {
        return new SplitSerializer();
    }

    @Override
    public SimpleVersionedSerializer<Collection<Split>> getEnumeratorCheckpointSerializer() {
        return new SimpleVersionedSerializer<>() {
            @Override
            public int getVersion() {
                return 1;
            }

            @Override
            public byte[] serialize(Collection<Split> splits) {
                return new byte[] {(byte) splits.size()};
            }

            @Override
            public Collection<Split> deserialize(int version, byte[] serialized) {
                List<Split> splits = new ArrayList<>();
                for (int i = 0; i < serialized[0]; i++) {
                    splits.add(new Split());
                }
                return splits;
            }
        };
    }

    @Override
    public TypeInformation<String> getProducedType() {
        return Types.STRING;
    }

    /** The one split: standard input, from where it is. */
    static final class Split implements IteratorSourceSplit<String, Iterator<String>> {
        @Override
        public String splitId() {
            return "stdin";
        }

        @Override
        public Iterator<String> getIterator() {
            return new Lines(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 16));
        }

        @Override
        public IteratorSourceSplit<String, Iterator<String>> getUpdatedSplitForIterator(Iterator<String> iterator) {
            throw new UnsupportedOperationException("standard input cannot be checkpointed");
        }
    }

    private static final class SplitSerializer implements SimpleVersionedSerializer<Split> {
        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(Split split) {
            return new byte[0];
        }

        @Override
        public Split deserialize(int version, byte[] serialized) {
            return new Split();
        }
    }

    private static final class Lines implements Iterator<String> {
        private final BufferedReader in;
        private String next;

        Lines(BufferedReader in) {
            this.in = in;
        }

        @Override
        public boolean hasNext() {
            if (next == null) {
                try {
                    next = in.readLine();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            return next != null;
        }

        @Override
        public String next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            String line = next;
            next = null;
            return line;
        }
    }
}
