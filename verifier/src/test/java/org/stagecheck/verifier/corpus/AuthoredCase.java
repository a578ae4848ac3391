package org.stagecheck.verifier.corpus;

import java.util.Map;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.json.ProgramCodec;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.verifier.Parent;

/**
 * A split program written by the model author ({@code stagecheck-author}), possibly with one
 * {@link Plant}ed bug (docs/verifier.md, "Authored mutation corpus").
 *
 * @param spec        the model
 * @param cut         the cut
 * @param options     the split's options (tp chips)
 * @param plant       the planted bug class, {@link Plant#NONE} for the authored program itself
 * @param program     the (mutated) split program
 * @param certificate its certificate
 * @param parent      the parent for remap plants, else null
 * @param rebind      split tensors bound to another split tensor's value: the duplicated-slice
 *                    plant's last shard holds what its certificate claims, the first shard's rows
 */
public record AuthoredCase(ModelSpec spec, Cut cut, AuthorOptions options, Plant plant, Program program,
                           Certificate certificate, Program parent, Map<String, String> rebind) {
    public AuthoredCase {
        // A planted program is another program than the one the author's certificate names by hash; the corpus
        // tests what the checker finds in the plant, so its certificate names no program (CertificateFitTest
        // tests the hash itself).
        if (certificate != null && certificate.programHash() != null && !certificate.programHash().equals(new ProgramCodec().hash(program))) {
            certificate = certificate.withProgramHash(null);
        }
    }

    public String name() {
        return plant.name().toLowerCase(java.util.Locale.ROOT) + " " + cut + " tp" + options.tp();
    }

    /** The parent to verify against: the program it was remapped from (remap plants), else none. */
    public Parent asParent() {
        return parent == null ? Parent.none() : Parent.remap(parent);
    }
}
