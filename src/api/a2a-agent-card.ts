import type { AgentCard } from '@a2a-js/sdk';
import type { CrewDefinition } from '../domain/crew.ts';

/*
 * The crew's public A2A agent card: the crew as one skill, its inputs, the bearer scheme and the JSON-RPC URL.
 * Nothing else of the crew (agents, prompts, tools, models) is in it: those are GET /crew's, behind a token.
 */

/** The path of the JSON-RPC endpoint under the crew's base URL. */
export const a2aRpcPath = '/a2a';

const inputModes = ['application/json', 'text/plain'];
const outputModes = ['text/plain', 'application/json'];
const schemeDescription = 'A crewd token: Authorization: Bearer <token>';

function example(crew: CrewDefinition): string {
  return JSON.stringify(Object.fromEntries(crew.requiredInputs.map((name) => [name, `<${name}>`])));
}

function skillDescription(crew: CrewDefinition): string {
  const inputs = crew.requiredInputs;
  const sentences = [`Runs the crew ${crew.name} and answers with its result.`];
  if (inputs.length === 0) sentences.push('It takes no inputs: any message starts it.');
  else {
    sentences.push(`Inputs: ${inputs.join(', ')}, sent as a data part ${example(crew)}.`);
    if (inputs.length === 1) sentences.push(`A text part is taken as ${inputs[0]} too.`);
  }
  if (crew.tasks.some((task) => task.humanInput)) {
    sentences.push(
      'Some tasks wait for review (input-required): answer on the same task with "approve", with feedback text ' +
        'to run the task again, or with a data part {"is_approve": true|false, "human_feedback": "..."}.',
    );
  }
  return sentences.join(' ');
}

/** The card in protocol 1.0 objects, its URLs under `baseUrl`; it lists the same endpoint for 1.0 and 0.3. */
export function a2aAgentCard(crew: CrewDefinition, baseUrl: string): AgentCard {
  const url = `${baseUrl}${a2aRpcPath}`;
  const description = skillDescription(crew);
  return {
    name: crew.name,
    description,
    supportedInterfaces: ['1.0', '0.3'].map((protocolVersion) => ({
      url,
      protocolBinding: 'JSONRPC',
      tenant: '',
      protocolVersion,
    })),
    provider: undefined,
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: true, extensions: [], extendedAgentCard: false },
    securitySchemes: {
      bearerAuth: {
        scheme: {
          $case: 'httpAuthSecurityScheme',
          value: { description: schemeDescription, scheme: 'bearer', bearerFormat: '' },
        },
      },
    },
    securityRequirements: [{ schemes: { bearerAuth: { list: [] } } }],
    defaultInputModes: inputModes,
    defaultOutputModes: outputModes,
    skills: [
      {
        id: 'kickoff',
        name: crew.name,
        description,
        tags: ['crew', 'crewai'],
        examples: crew.requiredInputs.length === 0 ? [] : [example(crew)],
        inputModes,
        outputModes,
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

/** The same card as protocol 0.3 writes it (`url`, `preferredTransport`, `security`…), for 0.3 clients. */
export function legacyAgentCardJson(card: AgentCard): Record<string, unknown> {
  const [primary] = card.supportedInterfaces;
  return {
    protocolVersion: '0.3.0',
    name: card.name,
    description: card.description,
    url: primary?.url,
    preferredTransport: 'JSONRPC',
    version: card.version,
    capabilities: { streaming: true, pushNotifications: true, stateTransitionHistory: false },
    securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: schemeDescription } },
    security: [{ bearerAuth: [] }],
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map((skill) => ({
      id: skill.id,
      name: skill.name,
      description: skill.description,
      tags: skill.tags,
      examples: skill.examples,
      inputModes: skill.inputModes,
      outputModes: skill.outputModes,
    })),
    supportsAuthenticatedExtendedCard: false,
  };
}
