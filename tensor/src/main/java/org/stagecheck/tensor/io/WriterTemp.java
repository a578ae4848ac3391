package org.stagecheck.tensor.io;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

/**
 * One writer's own temporary file or directory beside its target,
 * {@code .<target>.<random>.stagecheck-tmp}, moved over the target in one rename when complete
 * (docs/format.md, "Output paths"). Every file and directory stagecheck writes goes through here.
 *
 * <p>Why a name of its own, {@code <pid>-<random>}: with one fixed temporary name per target, two
 * writers of the same target (two CI jobs, two threads) delete and fill each other's temporary,
 * and one moves a mix into place. Which temporaries the next writer removes: never its own
 * process's, nor one whose process is alive here; of a process gone, one it can lock (the writer
 * held a lock on the file itself, or on the directory's {@code .lock} file, and the lock goes
 * with the process; so a writer on another machine sharing the file system keeps its own). Killed at any moment, a write leaves the old target, or the new one complete,
 * plus at most a hidden temporary that the next write removes.
 */
public final class WriterTemp implements AutoCloseable {
    /** The suffix of every temporary: {@code .<name>.<random>.stagecheck-tmp}. */
    public static final String SUFFIX = ".stagecheck-tmp";
    /** The suffix of a replaced directory set aside between the two renames that replace it. */
    static final String ASIDE = ".stagecheck-old";
    private static final String LOCK = ".lock";

    private final Path path;
    private final String token;
    private final FileChannel lock;
    private final boolean directory;

    private WriterTemp(Path path, String token, FileChannel lock, boolean directory) {
        this.path = path;
        this.token = token;
        this.lock = lock;
        this.directory = directory;
    }

    /**
     * A new temporary file beside {@code target}, open for writing and locked, after removing
     * what killed writers of the same target left. Created with the user's umask.
     */
    public static WriterTemp file(Path target) throws IOException {
        Path t = target.toAbsolutePath();
        removeKilledWriters(t);
        for (int attempt = 0; ; attempt++) {
            String token = token();
            Path p = t.resolveSibling(prefix(t) + token + SUFFIX);
            FileChannel ch;
            try {
                ch = FileChannel.open(p, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            } catch (FileAlreadyExistsException e) {
                if (attempt < 16) {
                    continue;
                }
                throw e;
            }
            try {
                ch.lock(); // a new file: nobody else holds it
                return new WriterTemp(p, token, ch, false);
            } catch (IOException | RuntimeException e) {
                ch.close();
                Files.deleteIfExists(p);
                throw e;
            }
        }
    }

    /**
     * A new temporary directory beside {@code target}, locked through its {@code .lock} file,
     * after removing what killed writers of the same target left. Created with the user's umask.
     */
    public static WriterTemp directory(Path target) throws IOException {
        Path t = target.toAbsolutePath();
        removeKilledWriters(t);
        for (int attempt = 0; ; attempt++) {
            String token = token();
            Path dir = t.resolveSibling(prefix(t) + token + SUFFIX);
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
                ch.lock();
                return new WriterTemp(dir, token, ch, true);
            } catch (IOException | RuntimeException e) {
                if (ch != null) {
                    ch.close();
                }
                deleteTree(dir);
                throw e;
            }
        }
    }

    /** The temporary file or directory: write the content here. */
    public Path path() {
        return path;
    }

    /** The temporary file's channel, positioned at 0 (a file temporary only). */
    public FileChannel channel() {
        if (directory) {
            throw new IllegalStateException("a directory temporary has no channel");
        }
        return lock;
    }

    /**
     * A buffered stream into the temporary file (a file temporary only). Closing it flushes and
     * keeps the channel open: a writer of JSON or zip closes its stream when done, and the lock
     * must be held until {@link #moveTo}.
     */
    public OutputStream stream() {
        return new java.io.BufferedOutputStream(new FilterOutputStream(java.nio.channels.Channels.newOutputStream(channel())) {
            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                out.write(b, off, len);
            }

            @Override
            public void close() throws IOException {
                flush();
            }
        }, 1 << 16);
    }

    /**
     * Puts the finished temporary in place of {@code target}. A file replaces a file in one rename.
     * A directory: an existing target (the caller checked it may be replaced as a whole) is first
     * renamed aside to {@code .<name>.<random>.stagecheck-old}, then the temporary renamed to the
     * target, then the old one deleted; killed between the renames, the target is absent and the
     * next writer removes the old one (its writer's temporary is gone).
     */
    public void moveTo(Path target) throws IOException {
        Path t = target.toAbsolutePath();
        if (!directory) {
            lock.force(false);
            try {
                Files.move(path, t, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(path, t, StandardCopyOption.REPLACE_EXISTING);
            }
            return;
        }
        Path aside = t.resolveSibling(prefix(t) + token + ASIDE);
        boolean existed = Files.exists(t, LinkOption.NOFOLLOW_LINKS);
        if (existed) {
            Files.move(t, aside, StandardCopyOption.ATOMIC_MOVE);
        }
        // the lock file stays behind in no one's way: the directory is moved without it
        Files.delete(path.resolve(LOCK));
        Files.move(path, t, StandardCopyOption.ATOMIC_MOVE);
        if (existed) {
            deleteTree(aside);
        }
    }

    /** Releases the lock and removes the temporary if it was not moved (best effort). */
    @Override
    public void close() {
        if (directory) {
            deleteTree(path);
        } else {
            try {
                Files.deleteIfExists(path);
            } catch (IOException ignored) {
                // the next writer of this target removes it: it is unlocked once this channel closes
            }
        }
        try {
            lock.close();
        } catch (IOException ignored) {
            // closing a lock: nothing to recover
        }
    }

    /**
     * Removes, in {@code dir}, what killed writers of any target left: unlocked temporaries and
     * directories set aside whose writer's temporary is gone. A running writer's are kept.
     */
    public static void removeKilledWritersIn(Path dir) {
        for (Path p : list(dir, n -> n.startsWith(".") && (n.endsWith(SUFFIX) || n.endsWith(ASIDE)))) {
            removeIfKilled(p);
        }
    }

    /** Removes what killed writers of {@code target} left beside it (see {@link #removeKilledWritersIn}). */
    public static void removeKilledWriters(Path target) {
        Path t = target.toAbsolutePath();
        if (t.getParent() == null) {
            return;
        }
        String prefix = "." + t.getFileName();
        for (Path p : list(t.getParent(), n -> n.startsWith(prefix) && (n.endsWith(SUFFIX) || n.endsWith(ASIDE))
                && ofTarget(n, prefix))) {
            removeIfKilled(p);
        }
    }

    /** Whether {@code name} is a temporary or aside of the target whose hidden prefix is {@code prefix}. */
    private static boolean ofTarget(String name, String prefix) {
        String suffix = name.endsWith(SUFFIX) ? SUFFIX : ASIDE;
        if (name.equals(prefix + suffix)) {
            return true; // the fixed name earlier versions used
        }
        String middle = name.substring(prefix.length(), name.length() - suffix.length());
        return middle.length() > 1 && middle.charAt(0) == '.' && isToken(middle.substring(1));
    }

    private static void removeIfKilled(Path p) {
        String n = p.getFileName().toString();
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            return;
        }
        if (n.endsWith(ASIDE)) {
            // set aside by a writer between its two renames: gone once that writer's temporary is
            String base = n.substring(0, n.length() - ASIDE.length());
            if (!Files.exists(p.resolveSibling(base + SUFFIX), LinkOption.NOFOLLOW_LINKS)) {
                deleteTree(p);
            }
            return;
        }
        String middle = n.substring(0, n.length() - SUFFIX.length());
        int dot = middle.lastIndexOf('.');
        if (dot <= 0 || !isToken(middle.substring(dot + 1))) {
            deleteTree(p); // an earlier version's fixed name: its writers never ran beside another
            return;
        }
        long pid = pidOf(middle.substring(dot + 1));
        if (pid == ProcessHandle.current().pid() || (pid > 0 && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))) {
            // a writer of this process, or a process alive here: running. (Not probed with a lock:
            // closing any channel of a file drops every lock this process holds on it.)
            return;
        }
        Path lockFile = a.isDirectory() ? p.resolve(LOCK) : a.isRegularFile() ? p : null;
        if (lockFile == null) {
            return;
        }
        try (FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
            FileLock l = ch.tryLock();
            if (l != null) {
                deleteTree(p); // its writer is gone (or holds no lock on this machine's view): the lock is held while it goes
            }
        } catch (OverlappingFileLockException | NoSuchFileException e) {
            // held, or a directory with no lock file: leave it
        } catch (IOException e) {
            // cannot tell: leave it
        }
    }

    /** The writer's process id in a token {@code <pid>-<random>}, or -1 for a token without one. */
    private static long pidOf(String token) {
        int dash = token.indexOf('-');
        if (dash <= 0) {
            return -1;
        }
        try {
            return Long.parseLong(token.substring(0, dash));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static List<Path> list(Path dir, java.util.function.Predicate<String> names) {
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, p -> names.test(p.getFileName().toString()))) {
            s.forEach(out::add);
        } catch (IOException | UncheckedIOException e) {
            // best effort: nothing removed
        }
        return out;
    }

    private static String prefix(Path target) {
        if (target.getFileName() == null) {
            throw new IllegalArgumentException(target + " is a root directory, not a file or directory to write");
        }
        return "." + target.getFileName() + ".";
    }

    /** {@code <pid>-<random>}: the process id tells a running writer's temporary from a killed one's without touching it. */
    private static String token() {
        return ProcessHandle.current().pid() + "-" + Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36);
    }

    private static boolean isToken(String s) {
        return !s.isEmpty() && s.length() <= 34 && s.chars().allMatch(c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == '-');
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
        } catch (IOException | UncheckedIOException ignored) {
            // best effort: hidden, named after the target, and removed by the next writer once unlocked
        }
    }
}
