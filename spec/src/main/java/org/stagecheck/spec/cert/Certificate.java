package org.stagecheck.spec.cert;

import java.util.List;

/**
 * The compiler's claims about a program (brief, "Certificates"). The checker trusts none of them:
 * it derives the facts from the program and checks each claim against them.
 *
 * @param shards the weight tensors that are slices of a logical tensor along its contraction axis
 * @param remap  the buffer renaming from a parent program, or null
 * @param claims the obligations the compiler says are discharged
 */
public record Certificate(List<ShardDecl> shards, BufferRemap remap, List<Obligation> claims) {
    public Certificate {
        shards = List.copyOf(shards);
        claims = List.copyOf(claims);
    }

    public static Certificate empty() {
        return new Certificate(List.of(), null, List.of());
    }
}
