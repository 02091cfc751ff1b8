"""A hand-written bot touching what the checker reads."""

import os
from os import getenv

import pipecat.services.deepgram.stt
from pipecat.services.deepgram.stt import (
    DeepgramSTTService as STT,
    DeepgramSTTSettings,
)
from pipecat.services.elevenlabs.tts import ElevenLabsTTSService
from pipecat.services.openai.llm import OpenAILLMService

stt = STT(
    api_key=os.environ["DEEPGRAM_API_KEY"],
    settings=DeepgramSTTSettings(model=getenv("DEEPGRAM_MODEL", "nova-3")),
)
params = ElevenLabsTTSService.InputParams(language=None)
tts = ElevenLabsTTSService(api_key=os.environ.get("ELEVENLABS_API_KEY"), voice_id="x")
llm = OpenAILLMService(api_key="k", model_name="gpt")
stt2 = pipecat.services.deepgram.stt.DeepgramSTTService(nonsense=1)
