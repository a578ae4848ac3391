package org.stagecheck.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.cert.ShardDecl;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.TensorDecl;

/**
 * Which bound tensors (input, weight, state) of a split program stand for one logical tensor
 * (docs/cli.md, "Binding a split program"): its <em>copies</em>, one whole replica per chip, or
 * its <em>parts</em>, each chip holding a window. Read from the certificate's shard declarations
 * when there is one (a declaration of the whole extent is a replica); otherwise from the names the
 * author gives a split's tensors (docs/author.md, "Tensor-parallel split"): {@code NAME} on chip 0
 * and {@code NAME.c<k>} on chip k of the same dtype and shape are copies of {@code NAME};
 * {@code NAME.c<k>} with no tensor {@code NAME} are parts (whether they are windows or replicas,
 * the names cannot tell).
 *
 * @param copies logical name to its copies, in the program's order (each group has two or more)
 * @param parts  logical name to the tensors holding its parts
 * @param source where the groups were read, for messages
 */
record ChipCopies(Map<String, List<String>> copies, Map<String, List<String>> parts, String source) {
    private static final Pattern CHIP_SUFFIX = Pattern.compile("(.+)\\.c([0-9]+)");

    ChipCopies {
        copies = Map.copyOf(copies);
        parts = Map.copyOf(parts);
    }

    /** A program on one chip: no tensor is a copy of another. */
    static ChipCopies none() {
        return new ChipCopies(Map.of(), Map.of(), "");
    }

    /** The groups the certificate declares (named {@code source} in messages). */
    static ChipCopies fromCertificate(Program program, Certificate certificate, String source) {
        Map<String, TensorDecl> tensors = program.tensorsByName();
        Map<String, List<ShardDecl>> byLogical = new LinkedHashMap<>();
        for (ShardDecl d : certificate.shards()) {
            TensorDecl t = tensors.get(d.tensor());
            if (t != null && t.role().isBoundBeforeRun() && d.axis() >= 0 && d.axis() < t.shape().rank()) {
                byLogical.computeIfAbsent(d.logical(), k -> new ArrayList<>()).add(d);
            }
        }
        Set<String> declared = new java.util.HashSet<>();
        certificate.shards().forEach(d -> declared.add(d.tensor()));
        Map<String, List<String>> copies = new LinkedHashMap<>();
        Map<String, List<String>> parts = new LinkedHashMap<>();
        for (Map.Entry<String, List<ShardDecl>> e : byLogical.entrySet()) {
            String logical = e.getKey();
            List<String> names = new ArrayList<>();
            TensorDecl same = tensors.get(logical);
            if (same != null && same.role().isBoundBeforeRun() && !declared.contains(logical)) {
                names.add(logical); // an undeclared tensor stands for the logical tensor of its own name (docs/verifier.md)
            }
            boolean whole = true;
            for (ShardDecl d : e.getValue()) {
                names.add(d.tensor());
                whole &= d.start() == 0 && d.end() == d.extent() && tensors.get(d.tensor()).shape().dim(d.axis()) == d.extent();
            }
            if (!whole) {
                parts.put(logical, names);
            } else if (names.size() > 1) {
                copies.put(logical, names);
            }
        }
        return new ChipCopies(copies, parts, source);
    }

    /** The groups the author's {@code .c<k>} names make. */
    static ChipCopies fromNames(Program program) {
        Map<String, TensorDecl> tensors = program.tensorsByName();
        Map<String, List<String>> byBase = new LinkedHashMap<>();
        for (TensorDecl t : program.tensors()) {
            Matcher m = CHIP_SUFFIX.matcher(t.name());
            if (t.role().isBoundBeforeRun() && m.matches()) {
                byBase.computeIfAbsent(m.group(1), k -> new ArrayList<>()).add(t.name());
            }
        }
        Map<String, List<String>> copies = new LinkedHashMap<>();
        Map<String, List<String>> parts = new LinkedHashMap<>();
        for (Map.Entry<String, List<String>> e : byBase.entrySet()) {
            TensorDecl base = tensors.get(e.getKey());
            boolean replicas = base != null && base.role().isBoundBeforeRun() && e.getValue().stream()
                    .map(tensors::get).allMatch(t -> t.dtype() == base.dtype() && t.shape().equals(base.shape()));
            if (replicas) {
                List<String> names = new ArrayList<>();
                names.add(base.name());
                names.addAll(e.getValue());
                copies.put(base.name(), names);
            } else if (base == null) {
                parts.put(e.getKey(), e.getValue());
            }
        }
        return new ChipCopies(copies, parts, "the chips' tensor names (NAME, NAME.c1, ...)");
    }
}
