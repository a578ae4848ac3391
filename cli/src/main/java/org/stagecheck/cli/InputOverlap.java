package org.stagecheck.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Objects;

/**
 * Refuses an output file that is one of the command's own inputs, or lies inside an input
 * directory (a golden case, a trace, an inputs directory): {@code verify P --sarif P} or
 * {@code golden check CASE --junit CASE/manifest.json} would otherwise replace the very file the
 * user asked to have read, after reading it (docs/format.md, "Output paths"). Paths are compared
 * after symbolic links are resolved, so a link or a {@code ..} does not hide the overlap.
 */
final class InputOverlap {
    private InputOverlap() {
    }

    /**
     * Checks {@code output} against the input files and directories (null entries, and inputs that
     * do not exist, are skipped: there is nothing there to destroy).
     */
    static void refuse(OutputPaths.OutputFile output, Collection<Path> inputFiles, Collection<Path> inputDirs) throws BadInputException {
        Path target = real(output.path());
        for (Path in : inputFiles.stream().filter(Objects::nonNull).toList()) {
            Path r = realIfExists(in);
            if (r != null && r.equals(target)) {
                throw new BadInputException(output.option() + " " + output.path() + " is the input " + in
                        + "; stagecheck does not replace a file it reads (choose another output path)");
            }
        }
        for (Path dir : inputDirs.stream().filter(Objects::nonNull).toList()) {
            Path r = realIfExists(dir);
            if (r != null && Files.isDirectory(r) && target.startsWith(r)) {
                throw new BadInputException(output.option() + " " + output.path() + " lies inside the input directory " + dir
                        + "; stagecheck does not write into what it reads (choose another output path)");
            }
        }
    }

    /** Refuses two outputs of one command that name the same file: the second would replace the first. */
    static void distinct(OutputPaths.OutputFile a, OutputPaths.OutputFile b) throws BadInputException {
        if (a != null && b != null && real(a.path()).equals(real(b.path()))) {
            throw new BadInputException(b.option() + " " + b.path() + " is the same file as " + a.option() + " " + a.path()
                    + "; give each report its own path");
        }
    }

    /**
     * Where a write to {@code p} lands: its directory's real path and its name. A final symbolic
     * link is not followed: the write renames over the link, never touching its target.
     */
    private static Path real(Path p) {
        Path abs = p.toAbsolutePath().normalize();
        Path parent = abs.getParent() == null ? null : realIfExists(abs.getParent());
        return parent == null || abs.getFileName() == null ? abs : parent.resolve(abs.getFileName());
    }

    private static Path realIfExists(Path p) {
        try {
            return Files.exists(p) ? p.toRealPath() : null;
        } catch (IOException | SecurityException e) {
            return null;
        }
    }
}
