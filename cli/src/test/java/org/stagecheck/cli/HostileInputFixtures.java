package org.stagecheck.cli;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.Npy;

/**
 * The hostile files of {@link HostileInputTest}, written once into a directory: programs that are
 * truncated, garbled, nested too deeply or wrongly typed, .npy files with every kind of bad header
 * or data, a golden case with a broken manifest, a trace, a pipe and links.
 */
final class HostileInputFixtures {
    private HostileInputFixtures() {
    }

    static final String PROGRAM = "../examples/elementwise-chain.json";

    static void write(Path dir) throws IOException {
        String program = Files.readString(Path.of(PROGRAM));
        Files.writeString(dir.resolve("p.json"), program);
        Files.copy(Path.of("../examples/tp2-matmul-allreduce.json"), dir.resolve("tp.json"));
        Files.copy(Path.of("../examples/certificates/tp2-matmul-allreduce.json"), dir.resolve("cert.json"));
        Map<String, String> programs = new TreeMap<>();
        programs.put("truncated", program.substring(0, program.length() / 2));
        programs.put("empty", "");
        programs.put("whitespace", " \n\t ");
        programs.put("garbage", "\u0000\u0001binary\u0002");
        programs.put("deep-array", "[".repeat(100_000) + "]".repeat(100_000));
        programs.put("deep-object", "{\"a\":".repeat(50_000) + "1" + "}".repeat(50_000));
        programs.put("nan-literal", program.replace("\"chips\": 1", "\"chips\": NaN"));
        programs.put("infinity-literal", program.replace("\"chips\": 1", "\"chips\": Infinity"));
        programs.put("duplicate-key", program.replace("\"version\": 1,", "\"version\": 1, \"version\": 1,"));
        programs.put("wrong-type", program.replace("\"chips\": 1", "\"chips\": \"one\""));
        programs.put("fraction", program.replace("\"chips\": 1", "\"chips\": 1.5"));
        programs.put("bigint", program.replace("\"chips\": 1", "\"chips\": 99999999999999999999999"));
        programs.put("two-documents", program + program);
        programs.put("null", "null");
        programs.put("array", "[]");
        programs.put("deep-expression", program.replace("mul(in0, sigmoid(in0))", "neg(".repeat(100_000) + "in0" + ")".repeat(100_000)));
        programs.put("long-string", program.replace("\"name\": \"elementwise-chain\"", "\"name\": \"" + "a".repeat(30_000_000) + "\""));
        programs.put("overflowing-shape", program.replace("[4, 8]", "[2147483647, 2147483647]"));
        programs.put("negative-shape", program.replace("[4, 8]", "[-4, 8]"));
        programs.put("overflowing-offset", program.replace("\"origin\": [0, 0], \"block\": [4, 8]}, \"numBlocks\": 1",
                "\"origin\": [2147483647, 0], \"block\": [4, 8]}, \"numBlocks\": 1"));
        programs.put("huge-buffer", program.replace("\"name\": \"silu\", \"dtype\": \"f32\", \"shape\": [4, 8]",
                "\"name\": \"silu\", \"dtype\": \"f32\", \"shape\": [100000, 100000]"));
        // well-formed, but its tensors (23.8 GiB) fit in no test JVM: refused before anything is allocated
        programs.put("too-big-for-the-heap", program.replace("[4, 8]", "[40000, 40000]").replace("[1, 8]", "[1, 40000]")
                .replace("\"subBlocks\": [2, 4]", "\"subBlocks\": [1, 1]"));
        for (var e : programs.entrySet()) {
            Files.writeString(dir.resolve(e.getKey() + ".json"), e.getValue());
        }
        Files.write(dir.resolve("non-utf8.json"), "{\"format\": \"stagecheck-program\", \"name\": \"\u00ff\"}".getBytes(StandardCharsets.ISO_8859_1));

        Tensor x = Tensor.fromFloats(DType.F32, Shape.of(4, 8), new float[32]);
        Path good = dir.resolve("x.npy");
        Npy.write(good, x);
        byte[] g = Files.readAllBytes(good);
        Files.write(dir.resolve("truncated.npy"), java.util.Arrays.copyOf(g, g.length - 10));
        Files.write(dir.resolve("header-only.npy"), java.util.Arrays.copyOf(g, g.length - 128));
        Files.write(dir.resolve("empty.npy"), new byte[0]);
        byte[] magic = g.clone();
        magic[3] = 'X';
        Files.write(dir.resolve("bad-magic.npy"), magic);
        Files.write(dir.resolve("trailing.npy"), java.util.Arrays.copyOf(g, g.length + 100));
        Files.write(dir.resolve("v9.npy"), withVersion(g, 9));
        Files.write(dir.resolve("f64.npy"), npy("<f8", "False", "(4, 8)", 256));
        Files.write(dir.resolve("wrong-shape.npy"), npy("<f4", "False", "(8, 4)", 128));
        Files.write(dir.resolve("fortran.npy"), npy("<f4", "True", "(4, 8)", 128));
        Files.write(dir.resolve("big-endian.npy"), npy(">f4", "False", "(4, 8)", 128));
        Files.write(dir.resolve("object.npy"), npy("|O", "False", "(4, 8)", 256));
        Files.write(dir.resolve("huge-shape.npy"), npy("<f4", "False", "(2147483647, 2147483647)", 128));
        Files.write(dir.resolve("negative-shape.npy"), npy("<f4", "False", "(-4, -8)", 128));
        Files.write(dir.resolve("text-shape.npy"), npy("<f4", "False", "('a', 'b')", 128));
        Files.write(dir.resolve("extra-key.npy"), withDict("{'descr': '<f4', 'fortran_order': False, 'shape': (4, 8), 'x': eval('1'), }", 128));
        Files.write(dir.resolve("huge-header.npy"), withHeaderLength(g, 0x7fffffff));
        Files.createDirectories(dir.resolve("dir.npy"));
        Files.createSymbolicLink(dir.resolve("loop.npy"), dir.resolve("loop.npy"));

        Path inputs = Files.createDirectories(dir.resolve("inputs"));
        Npy.write(inputs.resolve("x.npy"), x);
        Npy.write(inputs.resolve("bias.npy"), Tensor.fromFloats(DType.F32, Shape.of(1, 8), new float[8]));
        Path escaping = Files.createDirectories(dir.resolve("inputs-link-out"));
        Npy.write(escaping.resolve("bias.npy"), Tensor.fromFloats(DType.F32, Shape.of(1, 8), new float[8]));
        Files.createSymbolicLink(escaping.resolve("x.npy"), good);
        Path nanParams = Files.createDirectories(dir.resolve("inputs-nan-manifest"));
        Files.writeString(nanParams.resolve("inputs.json"), "{\"format\": \"stagecheck-inputs\", \"version\": 1, \"params\": {\"p\": NaN}}");
        Path dotdot = Files.createDirectories(dir.resolve("inputs-dotdot-manifest"));
        Files.writeString(dotdot.resolve("inputs.json"), "{\"format\": \"stagecheck-inputs\", \"version\": 1, \"tensors\": {\"x\": \"../x.npy\"}}");

        copyTree(Path.of("../golden/cases/elementwise-chain"), dir.resolve("case"));
        copyTree(Path.of("../golden/cases/elementwise-chain"), dir.resolve("case-broken"));
        Path manifest = dir.resolve("case-broken/manifest.json");
        Files.writeString(manifest, Files.readString(manifest).substring(0, 200));
        Files.createDirectories(dir.resolve("empty-dir"));
        CliRunner.run("run", dir.resolve("p.json").toString(), "--random", "1", "--trace", "--out", dir.resolve("trace").toString());
    }

    private static byte[] npy(String descr, String fortran, String shape, int dataBytes) {
        return withDict("{'descr': '" + descr + "', 'fortran_order': " + fortran + ", 'shape': " + shape + ", }", dataBytes);
    }

    private static byte[] withDict(String dict, int dataBytes) {
        int unpadded = 10 + dict.length() + 1;
        String padded = dict + " ".repeat((64 - unpadded % 64) % 64) + "\n";
        ByteBuffer b = ByteBuffer.allocate(10 + padded.length() + dataBytes).order(ByteOrder.LITTLE_ENDIAN);
        b.put(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0}).putShort((short) padded.length());
        b.put(padded.getBytes(StandardCharsets.ISO_8859_1));
        return b.array();
    }

    private static byte[] withVersion(byte[] npy, int major) {
        byte[] b = npy.clone();
        b[6] = (byte) major;
        return b;
    }

    private static byte[] withHeaderLength(byte[] npy, int length) {
        byte[] b = new byte[npy.length + 2];
        System.arraycopy(npy, 0, b, 0, 6);
        b[6] = 2;
        ByteBuffer.wrap(b, 8, 4).order(ByteOrder.LITTLE_ENDIAN).putInt(length);
        System.arraycopy(npy, 10, b, 12, npy.length - 10);
        return b;
    }

    static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : s.sorted(Comparator.naturalOrder()).toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }
}
