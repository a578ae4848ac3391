package org.stagecheck.cuda.lower;

/**
 * One generated kernel: the stage it belongs to, its name in the source and how many elements
 * (threads of work) it covers. A stage has one kernel, or with fast kernels a split stage two (its
 * partials, then their combine), and one more when its output goes through a staging area (it
 * copies the staged value into place).
 */
public record Kernel(int stageIndex, String stageId, String name, long threads) {}
