package org.stagecheck.spec.cert;

import java.util.List;

/**
 * The compiler's claims about a program (brief, "Certificates"). The checker trusts none of them:
 * it derives the facts from the program and checks each claim against them.
 *
 * @param shards      the weight tensors that are slices of a logical tensor along its contraction axis
 * @param remap       the buffer renaming from a parent program, or null
 * @param claims      the obligations the compiler says are discharged
 * @param programHash the canonical hash ({@code ProgramCodec.hash}) of the program this certificate
 *                    was written for, or null when it does not say; a certificate that names
 *                    another program's hash certifies nothing about this one
 * @param heads       how the program's grouped-query attentions pair query heads with key/value
 *                    heads, or null when it does not say (docs/format.md, "Certificate")
 */
public record Certificate(List<ShardDecl> shards, BufferRemap remap, List<Obligation> claims, String programHash, HeadLayout heads) {
    public Certificate {
        shards = List.copyOf(shards);
        claims = List.copyOf(claims);
    }

    /** A certificate that declares no head layout. */
    public Certificate(List<ShardDecl> shards, BufferRemap remap, List<Obligation> claims, String programHash) {
        this(shards, remap, claims, programHash, null);
    }

    /** A certificate that does not name its program. */
    public Certificate(List<ShardDecl> shards, BufferRemap remap, List<Obligation> claims) {
        this(shards, remap, claims, null);
    }

    public static Certificate empty() {
        return new Certificate(List.of(), null, List.of());
    }

    /** This certificate naming {@code hash} as its program's (null: naming none). */
    public Certificate withProgramHash(String hash) {
        return new Certificate(shards, remap, claims, hash, heads);
    }

    /** This certificate declaring head layout {@code layout} (null: none). */
    public Certificate withHeads(HeadLayout layout) {
        return new Certificate(shards, remap, claims, programHash, layout);
    }
}
