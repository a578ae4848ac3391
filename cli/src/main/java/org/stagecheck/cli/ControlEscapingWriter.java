package org.stagecheck.cli;

import java.io.FilterWriter;
import java.io.IOException;
import java.io.Writer;
import org.stagecheck.spec.validate.NameRules;

/**
 * Text output never carries raw control characters: a name or path holding NUL, ESC or another
 * control character (which a hostile program may) is printed as {@code \u0000}, so no terminal
 * escape is replayed and no line filter sees binary. A carriage return is escaped too: in a case
 * directory's name it would return to the start of the line and print a forged verdict over the
 * real one. Newline and tab pass (stagecheck's own lines end in a newline alone).
 */
final class ControlEscapingWriter extends FilterWriter {
    ControlEscapingWriter(Writer out) {
        super(out);
    }

    @Override
    public void write(int c) throws IOException {
        if (escaped(c)) {
            out.write(String.format("\\u%04X", c));
        } else {
            out.write(c);
        }
    }

    @Override
    public void write(char[] buf, int off, int len) throws IOException {
        int start = off;
        for (int i = off; i < off + len; i++) {
            if (escaped(buf[i])) {
                out.write(buf, start, i - start);
                write(buf[i]);
                start = i + 1;
            }
        }
        out.write(buf, start, off + len - start);
    }

    @Override
    public void write(String s, int off, int len) throws IOException {
        write(s.toCharArray(), off, len);
    }

    private static boolean escaped(int c) {
        return NameRules.isControl(c) && c != '\n' && c != '\t';
    }
}
