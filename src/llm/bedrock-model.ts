import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import { createAiSdkModel } from './ai-sdk-model.ts';
import type { ChatModel } from './chat-model.ts';
import { commonModelOptions } from './provider-model-options.ts';
import type { ProviderModelOptions } from './provider-model-options.ts';

/** How crewd signs in to Bedrock: AWS keys (requests signed with SigV4) or a Bedrock API key. */
export type BedrockCredentials =
  | {
      readonly kind: 'aws';
      readonly accessKeyId: string;
      readonly secretAccessKey: string;
      readonly sessionToken?: string | undefined;
    }
  | { readonly kind: 'api-key'; readonly apiKey: string };

export interface BedrockModelOptions extends ProviderModelOptions {
  readonly region: string;
  readonly credentials: BedrockCredentials;
  /** Default `https://bedrock-runtime.{region}.amazonaws.com`. */
  readonly baseURL?: string | undefined;
}

/** A model over Amazon Bedrock's Converse API. */
export function createBedrockModel(options: BedrockModelOptions): ChatModel {
  const { credentials } = options;
  const provider = createAmazonBedrock({
    region: options.region,
    ...(credentials.kind === 'api-key'
      ? { apiKey: credentials.apiKey }
      : {
          // An empty key and a credential provider of our own: the SDK then never reads the process environment
          // for a bearer token or keys, and signs every request with SigV4.
          apiKey: '',
          credentialProvider: () =>
            Promise.resolve({
              accessKeyId: credentials.accessKeyId,
              secretAccessKey: credentials.secretAccessKey,
              ...(credentials.sessionToken === undefined ? {} : { sessionToken: credentials.sessionToken }),
            }),
        }),
    ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  return createAiSdkModel({ ...commonModelOptions(options), languageModel: provider(options.model) });
}
