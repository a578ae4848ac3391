package org.stagecheck.cli;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The program and where its bound tensors and parameters come from (a picocli mixin): what
 * {@code run}, {@code cuda run} and {@code golden record} read alike.
 */
final class ProgramInputOptions {
    @Parameters(index = "0", paramLabel = "PROGRAM", description = "program file (.json)")
    Path programFile;

    @Option(names = "--inputs", paramLabel = "DIR", description = "directory of bound tensors (.npy) and optional inputs.json, or a golden case")
    Path inputs;

    @Option(names = "--random", paramLabel = "SEED", description = "generate every bound tensor not found in --inputs from this seed")
    Long seed;

    @Option(names = "--param", paramLabel = "NAME=VALUE", description = "bind a program parameter (repeatable; overrides inputs.json)")
    Map<String, Long> paramOverrides = new LinkedHashMap<>();
}
