package org.stagecheck.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SequencedMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A safetensors file as entries of raw bytes, for tests that write what no writer would: a
 * tensor removed or added, another dtype name (F64, I64), another shape. Reads the compact header
 * the project's writer writes.
 */
record RawSafetensors(SequencedMap<String, Entry> entries) {
    /** One tensor: its dtype's name in the file, its shape, its bytes. */
    record Entry(String dtype, long[] shape, byte[] bytes) {
    }

    private static final Pattern ENTRY = Pattern.compile(
            "\"([^\"]+)\":\\{\"dtype\":\"(\\w+)\",\"shape\":\\[([\\d,]*)\\],\"data_offsets\":\\[(\\d+),(\\d+)\\]\\}");

    static RawSafetensors read(Path file) throws IOException {
        byte[] all = Files.readAllBytes(file);
        int n = (int) ByteBuffer.wrap(all, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        String header = new String(all, 8, n, StandardCharsets.UTF_8);
        SequencedMap<String, Entry> entries = new LinkedHashMap<>();
        Matcher m = ENTRY.matcher(header);
        while (m.find()) {
            long[] shape = m.group(3).isEmpty() ? new long[0] : Arrays.stream(m.group(3).split(",")).mapToLong(Long::parseLong).toArray();
            int begin = 8 + n + Integer.parseInt(m.group(4));
            int end = 8 + n + Integer.parseInt(m.group(5));
            entries.put(m.group(1), new Entry(m.group(2), shape, Arrays.copyOfRange(all, begin, end)));
        }
        return new RawSafetensors(entries);
    }

    void write(Path file) throws IOException {
        StringBuilder h = new StringBuilder("{\"__metadata__\":{\"format\":\"pt\"}");
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        for (Map.Entry<String, Entry> e : entries.entrySet()) {
            Entry t = e.getValue();
            h.append(",\"").append(e.getKey()).append("\":{\"dtype\":\"").append(t.dtype()).append("\",\"shape\":")
                    .append(Arrays.toString(t.shape()).replace(" ", "")).append(",\"data_offsets\":[").append(data.size()).append(',')
                    .append(data.size() + t.bytes().length).append("]}");
            data.write(t.bytes());
        }
        h.append('}');
        while (h.length() % 8 != 0) {
            h.append(' ');
        }
        byte[] header = h.toString().getBytes(StandardCharsets.UTF_8);
        ByteBuffer out = ByteBuffer.allocate(8 + header.length + data.size()).order(ByteOrder.LITTLE_ENDIAN);
        out.putLong(header.length).put(header).put(data.toByteArray());
        Files.write(file, out.array());
    }
}
