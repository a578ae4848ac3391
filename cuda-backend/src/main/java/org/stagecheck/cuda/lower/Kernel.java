package org.stagecheck.cuda.lower;

/**
 * One generated kernel: the stage it belongs to, its name in the source and how many elements
 * (threads of work) it covers. A stage has one kernel, or two when its output goes through a
 * staging area (the second copies the staged value into place).
 */
public record Kernel(int stageIndex, String stageId, String name, long threads) {}
