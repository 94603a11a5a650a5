import { approvalRestReason } from '../../workflows/agent-metrics';

describe('livecontext_agent_blocked reason for an agent resting on BlockedOnApproval', () => {
  it('is approval while a call waits for approval, unknown_outcome when only unknown outcomes hold it', () => {
    expect(approvalRestReason({ awaitingApproval: () => [{ toolCallId: 'call_1' }] })).toBe('approval');
    expect(approvalRestReason({ awaitingApproval: () => [] })).toBe('unknown_outcome');
  });
});
