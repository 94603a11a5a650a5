/**
 * The unit project runs without a Temporal server, and a unit test that reaches for one fails at once
 * with a message that says where it belongs — also in `npm test`, where the integration project has
 * started a dev server for the same jest workers.
 */
import { connectSettings } from '../../common/connection';
import { connectTest, testAddress, withWorker } from '../support/temporal';

const moveIt = /unit tests run without one: move it to test\/integration/;

test('the test helpers that need the dev server say this is a unit test', async () => {
  expect(() => testAddress()).toThrow(moveIt);
  await expect(connectTest('nowhere')).rejects.toThrow(moveIt);
  await expect(withWorker({ taskQueue: 'nowhere' }, async () => 'ran')).rejects.toThrow(moveIt);
});

test('the project’s own connection code is pointed at an address that cannot be a server', () => {
  // Not localhost:7233, where a dev server left running by `npm start` would answer a unit test.
  expect(connectSettings().address).toBe('no-temporal-server-in-unit-tests.invalid:7233');
});
