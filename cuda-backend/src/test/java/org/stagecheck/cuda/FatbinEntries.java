package org.stagecheck.cuda;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * The entries of an nvcc fatbin, read from its headers (what {@code cuobjdump --list-elf} and
 * {@code --list-ptx} list): a 16-byte file header (magic {@code 0xBA55ED50}, version, header
 * size, size of the entries), then per entry a header whose first fields are its kind (1 PTX,
 * 2 ELF), the header's size and the payload's size, and at byte 28 the architecture (90 for
 * sm_90 / compute_90).
 */
final class FatbinEntries {
    static final int MAGIC = 0xBA55ED50;

    enum Kind { PTX, ELF }

    record Entry(Kind kind, int arch) {}

    private FatbinEntries() {
    }

    static List<Entry> read(byte[] fatbin) {
        ByteBuffer b = ByteBuffer.wrap(fatbin).order(ByteOrder.LITTLE_ENDIAN);
        if (fatbin.length < 16 || b.getInt(0) != MAGIC) {
            throw new IllegalArgumentException("not a fatbin: no magic 0xBA55ED50 at its start");
        }
        int headerSize = Short.toUnsignedInt(b.getShort(6));
        long end = headerSize + b.getLong(8);
        List<Entry> entries = new ArrayList<>();
        for (long at = headerSize; at < end && at + 32 <= fatbin.length;) {
            int pos = (int) at;
            int kind = Short.toUnsignedInt(b.getShort(pos));
            long entryHeader = Integer.toUnsignedLong(b.getInt(pos + 4));
            long payload = b.getLong(pos + 8);
            int arch = b.getInt(pos + 28);
            entries.add(new Entry(switch (kind) {
                case 1 -> Kind.PTX;
                case 2 -> Kind.ELF;
                default -> throw new IllegalArgumentException("fatbin entry of unknown kind " + kind + " at byte " + pos);
            }, arch));
            at += entryHeader + payload;
        }
        return entries;
    }
}
