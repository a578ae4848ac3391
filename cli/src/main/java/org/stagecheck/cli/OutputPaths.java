package org.stagecheck.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Comparator;
import java.util.stream.Stream;
import org.stagecheck.tensor.io.WriterTemp;
import org.stagecheck.tensor.npy.IoMessages;
import org.stagecheck.tensor.npy.Npy;

/**
 * Every output path of every command (--out, --sarif, --junit, --html, ...) goes through here, so
 * that they all fail the same way and never destroy anything (docs/format.md, "Output paths").
 *
 * <ul>
 * <li>Checked <b>before</b> the command does its work: a file output's directory must exist and
 *     be writable (tried by creating and removing a probe file); a path that is a directory, a
 *     block device, a pipe or a socket is refused. Each problem is a
 *     {@link BadInputException} (exit 2) with a one-line reason.</li>
 * <li>A character device ({@code /dev/null}, a terminal) and the process's own streams by their
 *     usual names ({@code /dev/stdout}, {@code /dev/stderr}, whatever they are connected to) are
 *     written into, never replaced: the report is produced whole, then written there.</li>
 * <li>Written atomically: into the writer's own {@code .<name>.<random>.stagecheck-tmp} beside
 *     the target, then renamed over it ({@link WriterTemp}); two writers of one target never mix,
 *     and a killed write's leftover is removed by the next write or check of the directory.
 *     Nothing is left behind on failure.</li>
 * <li>Only a regular file (or a symbolic link to one, which the rename replaces, never its
 *     target) is ever replaced: naming a file as an output asks for it to be replaced.</li>
 * <li>Files and directories are created with the user's umask, like any other program's.</li>
 * </ul>
 */
public final class OutputPaths {
    /** The suffix of temporary files and directories: {@code .<name>.stagecheck-tmp}. */
    public static final String TMP_SUFFIX = Npy.TMP_SUFFIX;

    private OutputPaths() {
    }

    /** Writes the content of an output file to a stream. */
    @FunctionalInterface
    public interface Content {
        void write(OutputStream out) throws IOException;
    }

    /** The process's own output streams, by the names a shell gives them: written to, whatever they are. */
    static final Path STDOUT = Path.of("/dev/stdout");
    static final Path STDERR = Path.of("/dev/stderr");

    /** A checked output file: {@link #write} replaces it atomically, or writes into a stream or character device. */
    public record OutputFile(String option, Path path) {
        public void write(byte[] bytes) throws BadInputException {
            write(out -> out.write(bytes));
        }

        public void write(Content content) throws BadInputException {
            if (path.equals(STDOUT) || path.equals(STDERR) || isCharacterDevice(path)) {
                writeInto(content);
                return;
            }
            try {
                try (WriterTemp tmp = WriterTemp.file(path)) {
                    try (OutputStream out = tmp.stream()) {
                        content.write(out);
                    }
                    refuseUnreplaceable(option, path); // it may have changed while the command worked
                    tmp.moveTo(path);
                }
            } catch (IOException e) {
                throw new BadInputException(option + " " + path + ": cannot write: " + IoMessages.describe(e));
            }
        }

        /**
         * Writes the whole content first (its faults surface before a byte goes out), then into
         * the stream or device: never replaced, never truncated, never closed when it is a stream.
         */
        private void writeInto(Content content) throws BadInputException {
            java.io.ByteArrayOutputStream whole = new java.io.ByteArrayOutputStream();
            try {
                content.write(whole);
                if (path.equals(STDOUT) || path.equals(STDERR)) {
                    java.io.PrintStream stream = path.equals(STDOUT) ? System.out : System.err;
                    whole.writeTo(stream);
                    stream.flush();
                    if (stream.checkError()) {
                        throw new IOException("the stream is closed or broken");
                    }
                } else {
                    try (OutputStream device = Files.newOutputStream(path, StandardOpenOption.WRITE)) {
                        whole.writeTo(device);
                    }
                }
            } catch (IOException e) {
                throw new BadInputException(option + " " + path + ": cannot write: " + IoMessages.describe(e));
            }
        }
    }

    /** A checked output directory, created (with its parents) by {@link #create}. */
    public record OutputDir(String option, Path path) {
        /** Creates the directory when missing; the first step of writing into it. */
        public Path create() throws BadInputException {
            try {
                Files.createDirectories(path);
            } catch (IOException e) {
                throw new BadInputException(option + " " + path + ": cannot create the directory: " + IoMessages.describe(e));
            }
            return path;
        }

        /**
         * Checks, before the work, that {@code child} (a plain file name such as one from
         * {@code SafeNames}) can be written in this directory: absent, or a file this command may
         * replace.
         */
        public void checkFile(String child) throws BadInputException {
            refuseUnreplaceable(option, org.stagecheck.tensor.npy.SafeNames.child(path, child));
        }

        /**
         * Checks a subdirectory the command will write into: absent, or a real directory (never a
         * symbolic link, which could lead out of this directory); removes killed writes' leftovers in it.
         */
        public OutputDir subdirectory(String child) throws BadInputException {
            Path sub = org.stagecheck.tensor.npy.SafeNames.child(path, child);
            BasicFileAttributes a = attributes(sub);
            if (a != null && (a.isSymbolicLink() || !a.isDirectory())) {
                throw new BadInputException(option + " " + sub + " exists and is not a directory"
                        + (a.isSymbolicLink() ? " but a symbolic link; stagecheck writes only inside " + path : ""));
            }
            if (a != null) {
                removeLeftovers(sub);
            }
            return new OutputDir(option, sub);
        }
    }

    /**
     * An output file, checked now: its directory exists and is writable, and the path is absent
     * or a regular file.
     */
    public static OutputFile file(String option, Path path) throws BadInputException {
        Path abs = absolute(option, path);
        if (abs.equals(STDOUT) || abs.equals(STDERR) || isCharacterDevice(abs)) {
            return new OutputFile(option, abs); // written into, never replaced
        }
        if (abs.getFileName() == null) {
            throw new BadInputException(option + " " + path + " is a directory, not a file");
        }
        refuseUnreplaceable(option, abs);
        Path dir = abs.getParent();
        BasicFileAttributes d = attributesFollowing(dir);
        if (d == null) {
            throw new BadInputException(option + " " + path + ": the directory " + dir + " does not exist");
        }
        if (!d.isDirectory()) {
            throw new BadInputException(option + " " + path + ": " + dir + " is not a directory");
        }
        probe(option, path, dir);
        return new OutputFile(option, abs);
    }

    /**
     * A directory the command writes files into (created with its parents when missing): an
     * existing path must be a directory; the nearest existing ancestor must be writable. Leftovers
     * of killed writes ({@code .*.stagecheck-tmp}) in it are removed.
     */
    public static OutputDir directory(String option, Path path) throws BadInputException {
        Path abs = absolute(option, path);
        BasicFileAttributes a = attributesFollowing(abs);
        if (a != null) {
            if (!a.isDirectory()) {
                throw new BadInputException(option + " " + path + " exists and is not a directory");
            }
            probe(option, path, abs);
            removeLeftovers(abs);
            return new OutputDir(option, abs);
        }
        Path ancestor = abs.getParent();
        while (ancestor != null && attributesFollowing(ancestor) == null) {
            ancestor = ancestor.getParent();
        }
        if (ancestor == null || !attributesFollowing(ancestor).isDirectory()) {
            throw new BadInputException(option + " " + path + ": " + ancestor + " is not a directory");
        }
        probe(option, path, ancestor);
        return new OutputDir(option, abs);
    }

    /**
     * A directory the command creates whole and moves into place (author --out): absent, or an
     * empty directory; never an existing non-empty one. Its parent is created when missing.
     */
    public static OutputDir newDirectory(String option, Path path) throws BadInputException {
        OutputDir d = directory(option, path);
        if (Files.isDirectory(d.path())) {
            try (Stream<Path> s = Files.list(d.path())) {
                if (s.findAny().isPresent()) {
                    throw new BadInputException(option + " " + path
                            + " is a directory that is not empty; stagecheck does not overwrite it (remove it or choose another)");
                }
            } catch (IOException e) {
                throw new BadInputException(option + " " + path + ": " + IoMessages.describe(e));
            }
        }
        return d;
    }

    /** Removes what killed writes of the directory {@code target} left beside it ({@link WriterTemp}). */
    static void removeLeftoversBeside(Path target) {
        WriterTemp.removeKilledWriters(target);
    }

    /** Deletes a file or a whole directory tree, never following a symbolic link out of it. */
    public static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** Removes, in {@code dir}, what killed writes left (never a running writer's: {@link WriterTemp}). */
    static void removeLeftovers(Path dir) {
        WriterTemp.removeKilledWritersIn(dir);
    }

    private static Path absolute(String option, Path path) throws BadInputException {
        if (path.toString().isEmpty()) {
            throw new BadInputException(option + " needs a path, not an empty string");
        }
        return path.toAbsolutePath().normalize();
    }

    /** Refuses a path that exists as anything but a regular file or a symbolic link. */
    private static void refuseUnreplaceable(String option, Path p) throws BadInputException {
        BasicFileAttributes a = attributes(p);
        if (a != null && a.isSymbolicLink()) {
            refuseLinkIntoTheSystem(option, p);
            a = attributesFollowing(p); // the rename replaces the link, but a link to a device says where output was meant to go
        }
        if (a == null || a.isRegularFile()) {
            return;
        }
        String what = a.isDirectory() ? "a directory" : "not a regular file (a device, pipe or socket)";
        throw new BadInputException(option + " " + p + " is " + what + "; stagecheck replaces only regular files");
    }

    /**
     * Refuses a link that leads, at any hop, into {@code /proc} or {@code /dev} ({@code /dev/stdout}
     * is a link to {@code /proc/self/fd/1}, which may name a regular file): the atomic rename
     * would replace the system's link itself, not write where it points.
     */
    private static void refuseLinkIntoTheSystem(String option, Path p) throws BadInputException {
        Path at = p;
        for (int hop = 0; hop < 40; hop++) {
            Path abs = at.toAbsolutePath().normalize();
            if (abs.startsWith("/proc") || abs.startsWith("/dev")) {
                throw new BadInputException(option + " " + p + " is or leads through " + abs
                        + " (a device or a process's stream); stagecheck writes only into ordinary paths it can replace");
            }
            if (!Files.isSymbolicLink(at)) {
                return;
            }
            try {
                Path target = Files.readSymbolicLink(at);
                at = at.toAbsolutePath().getParent() == null ? target : at.toAbsolutePath().getParent().resolve(target);
            } catch (IOException e) {
                return;
            }
        }
    }

    /** Tries to create and remove a file in {@code dir}: the only sure test of writing there. */
    private static void probe(String option, Path given, Path dir) throws BadInputException {
        Path probe = dir.resolve(".stagecheck-probe" + TMP_SUFFIX);
        try {
            Files.deleteIfExists(probe);
            Files.newOutputStream(probe, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE).close();
            Files.delete(probe);
        } catch (IOException e) {
            throw new BadInputException(option + " " + given + ": cannot write in " + dir + ": " + IoMessages.reason(e));
        }
    }

    /** Whether {@code p}, its links followed, is a character device ({@code /dev/null}, a terminal). */
    static boolean isCharacterDevice(Path p) {
        try {
            return Files.getAttribute(p, "unix:mode") instanceof Integer mode && (mode & 0170000) == 0020000;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return false; // absent, unreadable, or no unix attributes here: not a device to write into
        }
    }

    private static BasicFileAttributes attributes(Path p) {
        try {
            return Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            return null;
        }
    }

    private static BasicFileAttributes attributesFollowing(Path p) {
        try {
            return Files.readAttributes(p, BasicFileAttributes.class);
        } catch (IOException e) {
            return null;
        }
    }
}
