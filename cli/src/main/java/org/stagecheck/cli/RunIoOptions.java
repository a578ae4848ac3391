package org.stagecheck.cli;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The options {@code run} and {@code cuda run} share (a picocli mixin): the program, where its
 * bound tensors and parameters come from, where the outputs go, the trace and the report's form.
 */
final class RunIoOptions {
    @Mixin
    ProgramInputOptions source;

    @Option(names = "--out", paramLabel = "DIR", required = true, description = "directory for the output (and state) tensors")
    Path out;

    @Option(names = "--trace", description = "also write every stage's outputs to OUT/trace/")
    boolean trace;

    @Option(names = "--state-from", paramLabel = "DIR",
            description = "take every state tensor from DIR, a previous run's --out (its tensors.json): one decode step after another")
    Path stateFrom;

    @Option(names = "--bind", paramLabel = "NAME=FILE",
            description = "bind one input, weight or state tensor to a .npy file (repeatable; overrides the rest); on a split program a logical tensor's name binds its copy on every chip")
    Map<String, Path> binds = new LinkedHashMap<>();

    @Option(names = "--cert", paramLabel = "CERT",
            description = "the split program's certificate, which says which tensors are copies of one logical tensor for --bind (default: certificate.json beside the program)")
    Path cert;

    @Option(names = "--json", description = "print one JSON document instead of text")
    boolean json;
}
