package org.stagecheck.cli;

import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import picocli.CommandLine;

/**
 * Turns a command-line argument into a {@link Path}, with a clear refusal for a name Java cannot
 * represent: a NUL character, or (under a locale whose encoding is not UTF-8) any character the
 * encoding lacks. The JVM decodes argument bytes that are not valid in the locale's encoding to
 * U+FFFD, so a file named with such bytes cannot be opened by its decoded name; that is said
 * instead of "no such file".
 */
final class PathArgument implements CommandLine.ITypeConverter<Path> {
    private static final char REPLACEMENT = '\uFFFD';

    @Override
    public Path convert(String value) {
        if (value.isEmpty()) {
            throw new CommandLine.TypeConversionException("needs a path, not an empty string");
        }
        Path path;
        try {
            path = Path.of(value);
        } catch (InvalidPathException e) {
            throw new CommandLine.TypeConversionException("'" + value + "' is not a file name this system can take (" + e.getReason()
                    + "; file names are read as " + encoding() + ": run under a UTF-8 locale, e.g. LC_ALL=C.UTF-8, or rename the file)");
        }
        if (value.indexOf(REPLACEMENT) >= 0 && !Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            throw new CommandLine.TypeConversionException("'" + value + "' holds bytes that are not valid " + encoding()
                    + " (each shown as the replacement character), so the file cannot be named from Java; rename it");
        }
        return path;
    }

    private static String encoding() {
        String jnu = System.getProperty("sun.jnu.encoding");
        return jnu != null ? jnu : Charset.defaultCharset().name();
    }
}
