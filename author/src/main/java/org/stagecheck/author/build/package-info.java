/** A small builder of stage programs: declarations, fresh names and one helper per stage shape. */
package org.stagecheck.author.build;
