package io.kvcacheinjector.app.properties;

import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropagationMode;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;

/**
 * Sets the tries of every property with parameters in the test class it is added to (an {@code @Example} runs once):
 * {@value #FAST} in the normal build (the fast subset), or the value of the system property {@code properties.tries},
 * which the Maven profile {@code -Pproperties-long} sets (and which may be given on the command line,
 * {@code -Dproperties.tries=20000}). It also turns jqwik's edge-case mixing off.
 */
public final class PropertyTries implements AroundPropertyHook {
    /** Tries per property in the normal build. */
    static final int FAST = 250;
    /** The system property that overrides {@link #FAST}. */
    static final String PROPERTY = "properties.tries";

    @Override
    public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
        if (context.targetMethod().getParameterCount() > 0) {
            context.attributes().setTries(tries());
        }
        // the generators weight awkward values (empty, absent, null, colliding) themselves; jqwik's own edge cases
        // (the first or smallest choice of every part at once) would otherwise crowd out those weights
        context.attributes().setEdgeCases(EdgeCasesMode.NONE);
        return property.execute();
    }

    /** Registered on a test class, it applies to every property in it. */
    @Override
    public PropagationMode propagateTo() {
        return PropagationMode.ALL_DESCENDANTS;
    }

    /** Outermost, so the tries are set before the property starts. */
    @Override
    public int aroundPropertyProximity() {
        return -100;
    }

    static int tries() {
        String value = System.getProperty(PROPERTY, "").trim();
        if (value.isEmpty()) {
            return FAST;
        }
        try {
            int tries = Integer.parseInt(value);
            if (tries > 0) {
                return tries;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("-D" + PROPERTY + "=" + value + " is not a positive whole number of tries");
    }
}
