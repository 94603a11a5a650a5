/**
 * Set-up of the `unit` jest project: no Temporal server. In a full run the integration project's global
 * setup has started one and put its address in the environment the jest workers inherit; it is taken
 * out here, so a unit test that reaches for a server fails at once and says why (test/support/temporal.ts),
 * instead of passing in `npm test` and failing in `npm run test:unit`.
 */
delete process.env.LIVECONTEXT_TEST_ADDRESS;
delete process.env.LIVECONTEXT_TEST_BUNDLE;
process.env.LIVECONTEXT_TEST_PROJECT = 'unit';
// The project's own connection code reads TEMPORAL_ADDRESS: a reserved name that never resolves keeps a
// dev server left running on this machine (npm start) from answering, and names the reason when it fails.
process.env.TEMPORAL_ADDRESS = 'no-temporal-server-in-unit-tests.invalid:7233';
