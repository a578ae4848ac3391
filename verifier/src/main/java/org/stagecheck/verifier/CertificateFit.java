package org.stagecheck.verifier;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.cert.ShardDecl;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.json.ProgramCodec;

/**
 * Whether a certificate was written for the program it is checked with (docs/verifier.md,
 * "A certificate for another program"). A certificate that names its program's hash and names
 * another one, or at least half of whose shard declarations the program contradicts (tensors it
 * does not have, other shapes), is reported in one finding and its declarations are not used: checking another program's declarations one by one
 * gives a page of findings that all say the same thing.
 */
final class CertificateFit {
    /**
     * Below this many declarations the program contradicts (a tensor it does not have, another
     * shape), each is reported on its own line: a typo is not another program.
     */
    static final int SUMMARY_MIN_MISFITS = 3;
    /** How many of the unknown names the summary shows. */
    private static final int SHOWN = 3;

    private CertificateFit() {
    }

    /**
     * Checks that {@code certificate} fits {@code program}; when it does not, the one finding is
     * added and the result is false.
     */
    static boolean check(Program program, Certificate certificate, ProgramIndex index, Findings findings) {
        if (certificate.programHash() != null) {
            String hash = new ProgramCodec().hash(program);
            if (!hash.equals(certificate.programHash())) {
                findings.atField(Code.CERT_PROGRAM_DIFFERS, "cert:/programHash", null, "The certificate was written for another program:"
                        + " it names " + certificate.programHash() + ", and this program's hash is " + hash
                        + "; none of its declarations was used (give the certificate written with this program).");
                return false;
            }
            return true;
        }
        List<ShardDecl> shards = certificate.shards();
        List<String> unknown = new ArrayList<>();
        int otherShape = 0;
        for (ShardDecl d : shards) {
            TensorDecl t = index.tensor(d.tensor());
            if (t == null) {
                unknown.add(d.tensor());
            } else if (d.axis() >= t.shape().rank() || d.end() - d.start() != t.shape().dim(d.axis())) {
                otherShape++;
            }
        }
        int misfits = unknown.size() + otherShape;
        if (misfits >= SUMMARY_MIN_MISFITS && 2 * misfits >= shards.size()) {
            String shown = unknown.stream().limit(SHOWN).map(t -> "'" + t + "'").collect(Collectors.joining(", "))
                    + (unknown.size() > SHOWN ? ", ..." : "");
            String what = (unknown.isEmpty() ? "" : "names " + unknown.size() + " tensors this program does not have (" + shown + ")")
                    + (unknown.isEmpty() || otherShape == 0 ? "" : " and ")
                    + (otherShape == 0 ? "" : "gives " + otherShape + " tensors another shape than this program's");
            findings.atField(unknown.isEmpty() ? Code.SHARD_DECL_EXTENT : Code.SHARD_DECL_UNKNOWN_TENSOR, "cert:/shards", null,
                    "The certificate " + what + " (" + misfits + " of its " + shards.size() + " shard declarations): it was probably written for"
                            + " another program; none of its declarations was used.");
            return false;
        }
        return true;
    }
}
