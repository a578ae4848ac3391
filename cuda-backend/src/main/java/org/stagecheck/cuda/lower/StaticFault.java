package org.stagecheck.cuda.lower;

import org.stagecheck.backend.FaultCode;

/**
 * A fault the lowering can see without running: a buffer read before any stage wrote it, or a
 * Recv with no multicast Load of its group before it. The run executes the stages before
 * {@code stageIndex} and stops there with this fault, as the reference does.
 */
public record StaticFault(int stageIndex, String stageId, FaultCode code, String buffer, String message) {}
