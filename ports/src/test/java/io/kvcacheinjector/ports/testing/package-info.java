/** Test fixtures shared by every module that tests the ports: fakes of the driven ports and the golden-file contract test. */
package io.kvcacheinjector.ports.testing;
