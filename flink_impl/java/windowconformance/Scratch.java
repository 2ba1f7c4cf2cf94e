package windowconformance;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The process's own temporary directory: made the JVM's {@code java.io.tmpdir} before Flink reads it (Flink's
 * {@code io.tmp.dirs} defaults to it), and deleted before the JVM halts.
 *
 * <p>The runners halt the JVM ({@link Runtime#halt}: a failed job leaves non-daemon threads behind), and a halt
 * runs neither shutdown hooks nor {@code deleteOnExit}. Without this, every start of the SQL runner left the Table
 * planner's jar behind (45 MB, which Flink's {@code PlannerModule} extracts to the temporary directory and marks
 * {@code deleteOnExit}), and a MiniCluster not closed in time its directories. A directory left by a runner that
 * was killed outright (SIGKILL: nothing runs) is deleted by the next runner to start, once no process has its
 * number.
 */
final class Scratch {
    private static final String PREFIX = "window-conformance-jvm-";
    private static Path directory;

    private Scratch() {}

    /** Deletes what dead runners left, then makes this process's directory the JVM's temporary directory. */
    static void enter() {
        Path shared = Path.of(System.getProperty("java.io.tmpdir"));
        try (DirectoryStream<Path> left = Files.newDirectoryStream(shared, PREFIX + "*")) {
            for (Path dir : left) {
                if (!alive(dir.getFileName().toString().substring(PREFIX.length()))) {
                    delete(dir);
                }
            }
            directory = Files.createDirectories(shared.resolve(PREFIX + ProcessHandle.current().pid()));
            System.setProperty("java.io.tmpdir", directory.toString());
        } catch (IOException e) {
            System.err.println("the shared temporary directory is used: " + e);
        }
    }

    /** Deletes this process's directory and halts the JVM with {@code status}. */
    static void halt(int status) {
        if (directory != null) {
            delete(directory);
        }
        Runtime.getRuntime().halt(status);
    }

    private static boolean alive(String pid) {
        try {
            return ProcessHandle.of(Long.parseLong(pid)).map(ProcessHandle::isAlive).orElse(false);
        } catch (NumberFormatException e) {
            return true; // not a runner's: left alone
        }
    }

    private static void delete(Path dir) {
        try (Stream<Path> tree = Files.walk(dir)) {
            tree.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException | RuntimeException e) {
            // a file in use or gone meanwhile: what can be deleted is
        }
    }
}
