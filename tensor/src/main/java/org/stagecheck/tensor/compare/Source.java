package org.stagecheck.tensor.compare;

import org.stagecheck.tensor.npy.NpyHeader;
import org.stagecheck.tensor.npy.NpyReader;
import org.stagecheck.tensor.npy.TensorFileException;

/**
 * An operand during one pass: its file open, when it is one, shared by every worker (reads are
 * positional). Closing it closes the file.
 */
final class Source implements AutoCloseable {
    final Operand operand;
    /** The open file of an {@link Operand.NpyFile}; null for the others. */
    final NpyReader reader;

    private Source(Operand operand, NpyReader reader) {
        this.operand = operand;
        this.reader = reader;
    }

    /**
     * Opens {@code o}'s file, if it has one, and checks that its header still says what it said
     * when the operand was made (the comparison was judged possible on that header).
     */
    static Source open(Operand o) throws TensorFileException {
        return switch (o) {
            case Operand.InMemory m -> new Source(o, null);
            case Operand.Zeros z -> new Source(o, null);
            case Operand.NpyFile f -> {
                NpyReader r = NpyReader.open(f.path(), f.declared());
                NpyHeader now = r.header();
                if (!now.equals(f.header())) {
                    r.close();
                    throw new TensorFileException(f.path() + ": changed while it was being checked: it held " + f.header().describe()
                            + ", now " + now.describe() + ".");
                }
                yield new Source(o, r);
            }
        };
    }

    @Override
    public void close() {
        if (reader != null) {
            reader.close();
        }
    }
}
