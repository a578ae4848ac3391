package org.stagecheck.author;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

/**
 * One writer's own temporary directory beside its target, {@code .<target>.<random>.stagecheck-tmp},
 * moved into place when complete. Its own name keeps two writers of the same target apart (with
 * one shared name, each would delete and fill the other's files, and one would move a mix into
 * place). While the writer lives it holds a lock on the directory's {@code .lock} file; the lock
 * goes with the process, so the next writer of the same target removes the directories of killed
 * writers (unlocked) and never those of running ones.
 */
final class TempBeside implements AutoCloseable {
    private static final String LOCK = ".lock";

    private final Path dir;
    private final FileChannel lockChannel;

    private TempBeside(Path dir, FileChannel lockChannel) {
        this.dir = dir;
        this.lockChannel = lockChannel;
    }

    /** A new locked temporary directory beside {@code target} (created with the umask), after removing what killed writers left. */
    static TempBeside create(Path target, String suffix) throws IOException {
        Path parent = target.getParent();
        String base = "." + target.getFileName();
        removeKilledWriters(parent, base, suffix);
        for (int attempt = 0; ; attempt++) {
            Path dir = parent.resolve(base + "." + Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36) + suffix);
            try {
                Files.createDirectory(dir);
            } catch (FileAlreadyExistsException e) {
                if (attempt < 16) {
                    continue;
                }
                throw e;
            }
            FileChannel ch = null;
            try {
                ch = FileChannel.open(dir.resolve(LOCK), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                ch.lock(); // a new file: nobody else holds it; released when the channel closes or the process ends
                return new TempBeside(dir, ch);
            } catch (IOException | RuntimeException e) {
                if (ch != null) {
                    ch.close();
                }
                deleteTree(dir);
                throw e;
            }
        }
    }

    Path dir() {
        return dir;
    }

    /** Moves the finished directory, without its lock file, to {@code target} in one rename; the lock is held until it has moved. */
    void moveTo(Path target) throws IOException {
        Files.delete(dir.resolve(LOCK));
        Files.move(dir, target, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Releases the lock and removes the directory if it was not moved (best effort). */
    @Override
    public void close() {
        deleteTree(dir);
        try {
            lockChannel.close();
        } catch (IOException ignored) {
            // closing a lock file: nothing to recover
        }
    }

    /**
     * Removes the temporary directories of {@code base}'s killed writers: those whose lock file
     * this process can lock, and one of the fixed name {@code base + suffix} an earlier version
     * wrote. A directory without a lock file is a writer's that has just begun or is moving its
     * result: it is left alone.
     */
    private static void removeKilledWriters(Path parent, String base, String suffix) {
        String prefix = base + ".";
        List<Path> candidates = new ArrayList<>();
        DirectoryStream.Filter<Path> ours = p -> {
            String n = p.getFileName().toString();
            if (n.equals(base + suffix)) {
                return true;
            }
            if (!n.startsWith(prefix) || !n.endsWith(suffix) || n.length() <= prefix.length() + suffix.length()) {
                return false;
            }
            return n.substring(prefix.length(), n.length() - suffix.length()).chars().allMatch(c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z'));
        };
        try (DirectoryStream<Path> s = Files.newDirectoryStream(parent, ours)) {
            s.forEach(candidates::add);
        } catch (IOException e) {
            return; // best effort: nothing removed
        }
        for (Path d : candidates) {
            if (!Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS)) {
                continue;
            }
            if (d.getFileName().toString().equals(base + suffix)) {
                deleteTree(d);
                continue;
            }
            try (FileChannel ch = FileChannel.open(d.resolve(LOCK), StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
                FileLock lock = ch.tryLock();
                if (lock != null) {
                    deleteTree(d); // its writer is gone; the lock is held while it goes
                }
            } catch (OverlappingFileLockException | NoSuchFileException e) {
                // a writer of this process holds it, or it has no lock file: running, leave it
            } catch (IOException e) {
                // cannot tell: leave it
            }
        }
    }

    /** Deletes a tree without following links out of it; best effort (a later writer removes the rest). */
    static void deleteTree(Path root) {
        if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException ignored) {
            // best effort: hidden, named after the target, and removed by the next writer once unlocked
        }
    }
}
