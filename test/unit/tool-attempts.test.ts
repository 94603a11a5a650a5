import { withAttempts } from '../../activities/execute-tool';

describe('tool results record the attempts a run took (seed 004 retry count)', () => {
  test('the first attempt records nothing: the metadata stays as the tool gave it', () => {
    expect(withAttempts(undefined, 1)).toBeUndefined();
    expect(withAttempts({ rows: 3 }, 1)).toEqual({ rows: 3 });
  });

  test('a later attempt adds `attempts`, beside what the tool gave and over a key of the same name', () => {
    expect(withAttempts(undefined, 2)).toEqual({ attempts: 2 });
    expect(withAttempts({ rows: 3, attempts: 99 }, 4)).toEqual({ rows: 3, attempts: 4 });
  });

  test('metadata that is not an object is left for the workflow to refuse', () => {
    expect(withAttempts(['not', 'an', 'object'] as never, 3)).toEqual(['not', 'an', 'object']);
    expect(withAttempts('text' as never, 3)).toBe('text');
  });
});
