package org.stagecheck.proptest;

import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.params.provider.AnnotationBasedArgumentsProvider;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.support.ParameterDeclarations;

/** The seeds of a {@link SeededProperty}: {@link Seeds#of(int)} for its number of tries. */
final class SeedArguments extends AnnotationBasedArgumentsProvider<SeededProperty> {
    @Override
    protected Stream<? extends Arguments> provideArguments(ParameterDeclarations parameters, ExtensionContext context,
                                                           SeededProperty property) {
        if (property.tries() < 1) {
            throw new IllegalArgumentException("a @SeededProperty needs at least one try, not " + property.tries());
        }
        return Seeds.of(property.tries()).mapToObj(Arguments::of);
    }
}
