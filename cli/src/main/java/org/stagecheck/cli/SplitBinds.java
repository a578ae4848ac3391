package org.stagecheck.cli;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.spec.json.ProgramCodec;
import org.stagecheck.spec.validate.NameRules;
import org.stagecheck.tensor.Tensor;

/**
 * {@code --bind NAME=FILE} on a split program (docs/cli.md, "Binding a split program"): NAME, a
 * logical tensor with a copy on every chip, binds every copy ({@code tokens} binds
 * {@code tokens} and {@code tokens.c1}), except a copy bound by its own name; a logical tensor the
 * chips hold in parts is refused with the list of parts; and copies of one logical input or state
 * tensor bound to different values are a warning on stderr. Which tensors are copies comes from
 * {@link ChipCopies}: the certificate ({@code --cert}, else {@code certificate.json} beside the
 * program) when it is this program's, else the chips' tensor names.
 */
final class SplitBinds {
    static final String CERTIFICATE = "certificate.json";

    private final ChipCopies copies;
    private final Map<String, Path> binds;
    private final PrintWriter err;

    private SplitBinds(ChipCopies copies, Map<String, Path> binds, PrintWriter err) {
        this.copies = copies;
        this.binds = binds;
        this.err = err;
    }

    /**
     * The binds of {@code program}: {@code given} with every logical name spread over its copies.
     * Notes and warnings go to {@code err}.
     *
     * @param cert        {@code --cert}, or null (then {@code certificate.json} beside {@code programFile} when there is one)
     * @throws BadInputException a logical name the chips hold in parts; an unreadable {@code --cert}, or one of another program
     */
    static SplitBinds expand(Program program, Path programFile, Path cert, Map<String, Path> given, PrintWriter err) throws BadInputException {
        Certificate explicit = cert == null ? null : Load.certificate(cert).certificate();
        if (explicit != null && explicit.programHash() != null && !explicit.programHash().equals(new ProgramCodec().hash(program))) {
            throw new BadInputException("--cert " + cert + " was written for another program (it names " + explicit.programHash()
                    + ", and " + programFile + " is " + new ProgramCodec().hash(program) + ")");
        }
        if (program.machine().chips() < 2 || given.isEmpty()) {
            return new SplitBinds(ChipCopies.none(), given, err);
        }
        ChipCopies copies = explicit != null ? ChipCopies.fromCertificate(program, explicit, "--cert " + cert) : besideTheProgram(program, programFile, err);
        return new SplitBinds(copies, spread(program, copies, given, err), err);
    }

    /** The binds, every logical name spread over its copies. */
    Map<String, Path> binds() {
        return binds;
    }

    /** Warns on stderr for each logical input or state tensor whose copies, one of them bound by {@code --bind}, hold different values. */
    void warnDisagreements(Program program, Map<String, Tensor> bound) {
        Map<String, TensorDecl> tensors = program.tensorsByName();
        for (Map.Entry<String, List<String>> e : copies.copies().entrySet()) {
            List<String> names = e.getValue();
            TensorRole role = tensors.get(names.getFirst()).role();
            if (role != TensorRole.INPUT && role != TensorRole.STATE || names.stream().noneMatch(binds::containsKey)) {
                continue;
            }
            Tensor first = bound.get(names.getFirst());
            List<String> differing = names.stream().skip(1).filter(n -> bound.get(n) != null && first != null && !first.bitEquals(bound.get(n))).toList();
            if (!differing.isEmpty()) {
                err.println("warning: the chips' copies of " + role.jsonName() + " " + NameRules.quote(e.getKey()) + " disagree: "
                        + differing.stream().map(n -> NameRules.quote(n) + " (" + describe(n) + ")").collect(Collectors.joining(", "))
                        + (differing.size() == 1 ? " holds" : " hold") + " other values than " + NameRules.quote(names.getFirst())
                        + " (" + describe(names.getFirst()) + "), so the chips compute with different " + NameRules.quote(e.getKey())
                        + "; --bind " + e.getKey() + "=FILE binds every copy");
            }
        }
        err.flush();
    }

    private String describe(String name) {
        Path file = binds.get(name);
        return file == null ? "not from --bind" : "from --bind " + file;
    }

    private static ChipCopies besideTheProgram(Program program, Path programFile, PrintWriter err) {
        Path dir = programFile.toAbsolutePath().getParent();
        Path file = dir == null ? null : dir.resolve(CERTIFICATE);
        if (file == null || !Files.isRegularFile(file)) {
            return ChipCopies.fromNames(program);
        }
        try {
            Certificate c = Load.certificate(file).certificate();
            if (c.programHash() != null && !c.programHash().equals(new ProgramCodec().hash(program))) {
                err.println("note: " + file + " was written for another program; the chips' copies are found by their names");
                return ChipCopies.fromNames(program);
            }
            return ChipCopies.fromCertificate(program, c, file.toString());
        } catch (BadInputException e) {
            err.println("note: " + file + " is not a certificate stagecheck can read (" + e.getMessage() + "); the chips' copies are found by their names");
            return ChipCopies.fromNames(program);
        }
    }

    private static Map<String, Path> spread(Program program, ChipCopies copies, Map<String, Path> given, PrintWriter err) throws BadInputException {
        Map<String, TensorDecl> tensors = program.tensorsByName();
        Map<String, Path> out = new LinkedHashMap<>();
        for (Map.Entry<String, Path> e : given.entrySet()) {
            String name = e.getKey();
            List<String> group = copies.copies().get(name);
            if (group != null) {
                List<String> spreadTo = new ArrayList<>();
                for (String copy : group) {
                    if (copy.equals(name) || !given.containsKey(copy)) { // a copy bound by its own name keeps that file
                        out.put(copy, e.getValue());
                        spreadTo.add(copy);
                    }
                }
                err.println("note: --bind " + NameRules.quote(name) + " binds the copy on every chip: "
                        + spreadTo.stream().map(NameRules::quote).collect(Collectors.joining(", ")) + " (copies read from " + copies.source() + ")");
            } else if (!tensors.containsKey(name) && copies.parts().containsKey(name)) {
                throw new BadInputException("--bind " + NameRules.quote(name) + ": the split program holds " + NameRules.quote(name)
                        + " in parts, one per chip (" + copies.parts().get(name).stream().map(NameRules::quote).collect(Collectors.joining(", "))
                        + ", read from " + copies.source() + "); bind each part by its own name");
            } else {
                out.put(name, e.getValue());
            }
        }
        err.flush();
        return out;
    }
}
