package org.stagecheck.spec.gen;

import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.ir.Program;

/**
 * A generated program and the certificate a compiler would write beside it: the weight shards
 * behind every {@code AllReduce} (brief, "Certificates"), and the claims the generator makes true
 * by construction.
 */
public record Generated(Program program, Certificate certificate) {}
