/**
 * The composition root of the admission path: {@link io.kvcacheinjector.app.wiring.AdmissionWiring} builds the use
 * cases and their failure policy for every command ({@code serve}, {@code inject}, {@code review}, {@code bench},
 * {@code check}) and for the tests. A package of its own, so the commands of {@code app} and {@code app.check} can
 * both use it without a package cycle.
 */
package io.kvcacheinjector.app.wiring;
