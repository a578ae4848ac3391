/**
 * The transformer's math written as stages (one {@link org.stagecheck.author.model.CutWriter} walk
 * per cut), the bindings of a program's tensors to the logical (unsplit) tensors, and slicing.
 */
package org.stagecheck.author.model;
