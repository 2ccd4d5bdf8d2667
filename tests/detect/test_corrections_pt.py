"""self_improve.detect.corrections_pt: the general Portuguese forms of issue 13 (train3), each by
the exact pattern that names it, and the hard negatives next to them (no pattern at all).

The sentences are new (in no data file): each stands for a family of phrasing (a rule frame, a
verb stem with its endings, a hedging formula), not for itself. Brazilian and European forms.
"""

from __future__ import annotations

import pytest

from self_improve.detect.corrections import CorrectionHit
from tests.detect.pattern_hits import pattern_hit


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        # train7: the vetoes of answers, upfront rules and judged docs leave these corrections alone
        ("Não, isso está errado, são três lojas.", "pt.no"),
        ("Você gerou a nota fora do horário comercial; aqui isso nunca acontece, é regra da casa.", "pt.house"),
        ("O campo que você usou agora se chama amount_cents, a doc antiga está desatualizada.", "pt.factual"),
        # house rules: absolute idioms, a gate that refuses, a convention frame, "nenhum ... sem"
        ("Credencial no código em hipótese alguma, usa o vault.", "pt.rule-idiom"),
        ("Import relativo não passa no lint, troca pelos absolutos.", "pt.rule-idiom"),
        ("O padrão do time diz snake_case nas colunas.", "pt.rule-idiom"),
        ("Nenhuma imagem sobe pro registry sem scan de vulnerabilidade.", "pt.rule-idiom"),
        # house rules: 1st-person plural under "não", or with "só"/"sempre"
        ("Não versionamos o .env, tira ele do commit.", "pt.rule-verb"),
        ("Aqui só aceitamos PR com teste, e o teu não tem nenhum.", "pt.rule-verb"),
        # plain facts: "não ... mais", "virou", a version, "só afeta"
        ("O Expo não suporta mais esse plugin de câmera.", "pt.fact-stem"),
        ("O `getServerSideProps` virou server component no app router.", "pt.fact-stem"),
        ("A partir da v5 o cliente foi separado em pacotes menores.", "pt.fact-stem"),
        ("O --force só pula a checagem de lock, não apaga nada.", "pt.fact-stem"),
        # praise, then the reservation
        ("Curti o fluxo novo; uma ressalva: o botão voltar ficou escondido.", "pt.praise-but"),
        ("A migração tá ótima, só que ela trava a tabela inteira.", "pt.praise-but"),
        # restating: when and what was said before, what was agreed
        ("Avisei no começo: o jQuery fica fora disso.", "pt.restate-stem"),
        ("Eu te tinha pedido a versão em TypeScript.", "pt.restate-stem"),
        ("Relembrando o combinado, o endpoint antigo continua no ar.", "pt.restate-stem"),
        # hedging formulas
        ("Sem querer ser chata, mas esse regex não pega acento.", "pt.hedged-stem"),
        ("Posso estar enganado, mas o cron está em UTC.", "pt.hedged-stem"),
        ("Eu não mexeria no schema agora, bastava um índice.", "pt.hedged-stem"),
        ("Hmm, isso não devia ficar no worker?", "pt.hedged-stem"),
        # reproachful questions, "again" as a reproach
        ("Pra que reinventar o parser de datas?", "pt.reproach-stem"),
        ("Baseado em quê você trocou o algoritmo de hash?", "pt.reproach-stem"),
        ("Por que o token tá hardcoded outra vez?", "pt.reproach-stem"),
        ("E cadê o teste de regressão?", "pt.reproach-stem"),
        ("Da onde surgiu esse arquivo utils_v2.py?", "pt.whence"),
        # the European 2nd person, "você acabou ...ndo", "só pedi", "não é isso que eu quero"
        ("Já apagaste a pasta das fixtures, não era pra mexer nela.", "pt.you-stem"),
        ("Eu só pedi o ajuste no header, não um redesign.", "pt.you-stem"),
        ("Não é bem disso que eu preciso: quero o total por loja.", "pt.you-stem"),
        # "em vez do" / "no lugar da": the contractions of "de"
        ("Usa o logger do projeto no lugar da lib nova.", "pt.instead"),
        # train6: the rule after the agent broke it; a "Não," that rejects, or says "X, não Y"
        ("Você colocou o log no stdout. Aqui logs nunca vão pro stdout em produção.", "pt.house"),
        ("Aqui a gente nunca usa float pra dinheiro. Você usou no estorno, refaz com centavos.", "pt.house"),
        ("Não, o servidor tem 8 GB, não 16.", "pt.no"),
        ("Não, isso quebra o login. Volta.", "pt.no"),
        ("Tem algum motivo pra você ter usado Redis aqui?", "pt.more"),
    ],
)
def test_general_forms(text: str, pattern: str) -> None:
    assert pattern_hit(text) == CorrectionHit(pattern, "pt")


@pytest.mark.parametrize(
    "text",
    [
        # a request for new work with its rules up front
        "Cria o serviço de notificações. Aqui sempre versionamos o schema junto.",
        "Escreve o parser, nada de regex gigante.",
        # praise, then a new request; "mas" inside a word is no "mas"
        "Ótimo, agora adiciona os testes do parser.",
        "Os sistemas estão ótimos, obrigado!",
        "Valeu, mas deixa que eu faço o deploy.",
        # an answer, a question, a failure, somebody else's claim
        "Não, nunca ouvi falar desse linter. O que ele faz?",
        "Cadê o arquivo de config do nginx nesse servidor?",
        "Por que o CI falha de novo? Olha os logs.",
        "O fornecedor diz que o SDK não suporta mais Android 7.",
        "A partir da versão 3 precisa atualizar o config, faz isso.",
        "Será que não é um bug do Chrome?",
        "Receio que eu não tenha tempo hoje, pode seguir.",
        "Nada de pressa, pode fazer com calma.",
        "No Makefile novo usa tab, não espaço.",
        # train5: a rule for the work the agent is about to do; a rule in a request of new work
        "Aqui a gente nunca faz deploy de madrugada, então no plano que você vai montar deixa a janela às 10h.",
        "Monta o pipeline de lint. Nossa convenção é um job por linguagem.",
        # train5: somebody else's work judged; a failure on a schedule; a question; an estimate
        "A apostila que o estagiário usou diz para commitar o .env, isso está errado. Tira do repositório.",
        "O mesmo erro de conexão aparece toda segunda de manhã no job de backup. O que pode ser?",
        "Tem algum motivo pra não usar o Redis como fila aqui?",
        "Não, o catálogo é pequeno, umas duas mil peças.",
        # train6: a rule, then the request at a later sentence start; answers about the user's setup;
        # a question about a choice
        "Aqui logs nunca vão pro stdout em produção. Implementa o logger do serviço de pedidos.",
        "Nós sempre versionamos o schema do banco. Me ajuda a montar a migração da tabela de pacientes.",
        "Não, o servidor só tem 8 GB de RAM.",
        "Não, a fila roda no RabbitMQ mesmo.",
        "não, o node instalado aqui é o 18",
        "Não, os arquivos vêm sempre do SFTP do banco, não usamos S3.",
        "Tem algum motivo pra preferir Rust em vez de Go nesse parser?",
        # train7: answers (são só, só existem, fecha/paga, só temos); a rule, then "me manda"/"pode criar"/
        # "consegue montar"; a vendor's docs judged wrong or outdated, then "o certo é"/"agora se chama"
        "Não, são só três lojas.",
        "Não, o estoque só existe no ERP.",
        "Não, o caixa fecha às 22h e abre às 8h.",
        "Não, só temos ambiente de homologação por enquanto.",
        "Contrato assinado só o jurídico pode ver, é regra da casa.\n\nQuero começar pelas permissões: me manda um rascunho?",
        "Pode criar o job de conciliação? Aqui toda conciliação roda em UTC, é regra.",
        "Aqui todo valor vai em centavos, é regra da casa. Consegue montar o cálculo de frete?",
        "A doc do fornecedor do gateway tá com o nome do campo errado. O certo é amount_cents; ajusta o cliente.",
        "A documentação do gateway de pagamento está desatualizada, o campo agora se chama amount_cents. Ajusta o cliente.",
    ],
)
def test_hard_negatives(text: str) -> None:
    assert pattern_hit(text) is None


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        # round 5: a value set against the agent's, reproachful questions, hedged doubt, what the
        # agent's change does, a rule then the agent's work that breaks it
        ("a latência é medida em percentis e não em média", "pt.fact-contrast"),
        ("Por que diabos tem um print no handler de pagamento?", "pt.reproach-4"),
        ("Você leu o ticket? Era pra mexer só no relatório.", "pt.reproach-4"),
        ("esse pacote de 30 MB pra formatar moeda saiu de onde?", "pt.reproach-4"),
        ("Tenho a impressão de que a sua consulta conta duas vezes as devoluções.", "pt.hedged-5"),
        ("Hmm, acho que desse jeito a sessão expira antes do pagamento.", "pt.hedged-5"),
        ("Seu commit apaga as sessões de todos os usuários no deploy.", "pt.you-did-2"),
        ("Endpoint público sempre leva rate limit, e o seu não tem.", "pt.house-yours"),
    ],
)
def test_round5_families(text: str, pattern: str) -> None:
    assert pattern_hit(text) == CorrectionHit(pattern, "pt")


@pytest.mark.parametrize(
    "text",
    [
        # round 5: a fact for new work, a reported claim, the user's own problem or doubt, answers
        "Os boletos vencem no dia 10, não no dia 5. Gera o calendário de cobrança.",
        "O cliente diz que a porta é 8080, não 80.",
        "Isso quebra o build desde ontem, o que pode ser?",
        "Tenho a impressão de que o servidor fica lento à noite, consegue investigar?",
        "esse erro veio de onde? aparece no log do nginx",
        "Não, melhor amanhã, o cliente ainda não mandou os dados.",
        "Não, esse job antigo ninguém mais chama, pode apagar.",
        "Não, nenhum hotel usa ainda o PMS novo.",
        "Pro relatório: nada de gráfico de pizza, então monta só as tabelas.",
    ],
)
def test_round5_hard_negatives(text: str) -> None:
    assert pattern_hit(text) is None


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        # round 6: next to each new veto, the correction it must leave alone
        ("Não, o timeout é baixo demais, aumenta pra 30 s.", "pt.no"),
        ("Não, o worker roda na VPS, não no Heroku como você configurou.", "pt.no"),
        ("Não, a esteira é automática, e você tratou como manual.", "pt.no"),
        ("Não, a gente não usa Docker aqui, tira isso.", "pt.no"),
        ("Dito isso, você apagou as fixtures.", "pt.you-did"),
        ("Não, a gente só usa pnpm, troca o lockfile.", "pt.house"),
    ],
)
def test_round6_families(text: str, pattern: str) -> None:
    assert pattern_hit(text) == CorrectionHit(pattern, "pt")


@pytest.mark.parametrize(
    "text",
    [
        # round 6: "Não, <subject> é <no article> / trabalha ...", where the user's system runs set
        # against another place, "a gente não usa" in an answer, "dito isso, cria ...", rules given
        # "antes de começar", a claim reported by a third party
        "Não, a esteira é automática, modelo SX-400.",
        "Não, o hangar não trabalha de madrugada.",
        "não, o worker roda na VPS, não no Heroku",
        "Não, as fotos chegam em HEIC, não em JPEG.",
        "Não, o faturamento roda em DB2. MySQL a gente não usa.",
        "as fixtures aqui sempre ficam em YAML. dito isso, cria o seed das barricas",
        "Antes de começar, as regras do time: nada de print, logging estruturado. O serviço de escalas dos pilotos.",
        "O advogado diz que o prazo é de 15 dias úteis, não corridos.",
        "A API do tribunal não existe mais na versão 1, tem que usar a 2. Escreve o cliente.",
        "Não, a gente só tem licença do Office 2019.",
    ],
)
def test_round6_hard_negatives(text: str) -> None:
    assert pattern_hit(text) is None


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        # round 7: the new vetoes leave the agent-aimed forms alone
        ("Não, a pulseira tem GPS sim, você tirou o módulo de localização.", "pt.you-past"),
        ("Não, o catálogo tá no Shopify e você escreveu pro WooCommerce. Refaz.", "pt.no"),
        ("Não, legenda pra surdos usa cor, e você apagou as tags <font>.", "pt.no"),
        ("Não, isso é o arquivo errado.", "pt.no"),
        ("Não, o catálogo tá no Shopify, mas o estoque você leu do lugar errado.", "pt.no"),
        ("Não, o WMS é SAP, não Oracle.", "pt.no"),
        ("Preferia que o relatório saísse em PDF, como eu já disse. Faz com reportlab.", "pt.restate"),
        ("Preferia que você não tivesse mudado o formato. Faz de novo em CSV.", "pt.hedged"),
        ("Beleza, tudo verde. Passa agora pro relatório, mas você quebrou o login.", "pt.you-did"),
    ],
)
def test_round7_corrections(text: str, pattern: str) -> None:
    assert pattern_hit(text) == CorrectionHit(pattern, "pt")


@pytest.mark.parametrize(
    "text",
    [
        # round 7: "Não, <bare subject> <verb of how it works>", hearsay before it, "nope", a conjunction
        # "e a", a third party in a cleft, a go-ahead at the end; rules before "com isso em mente, cria" or
        # a comma and the request; praise, then the next request; a preference or a doubt about work to come
        "Não, ônibus elétrico e a diesel têm a mesma tabela de horários.",
        "Nope, a nota é emitida sempre pela Sefaz estadual, não tem outro caminho.",
        "Não, até onde eu sei a cooperativa não tem sistema; é tudo por planilha.",
        "Não, boleto que ninguém paga gera multa sozinho; isso é o banco que faz.",
        "Não, o portal de dados tá no CKAN e os metadados num Postgres separado.",
        "Não, a prefeitura cobra por hora cheia na zona azul. Pode seguir assim.",
        "Regras:\n- nunca guardamos CPF em texto puro\n\nCom isso em mente, cria a tabela de doadores.",
        "Partindo do princípio que aqui nunca se apaga pedido, prepara o job de arquivamento.",
        "Desenvolve o leitor do inversor; nada de lib externa, só a padrão.",
        "Valeu, ficou ótimo. Agora, pra próxima tela, preciso do mesmo pros voluntários, mas sem o filtro de data.",
        "Preferia que o extrato saísse em PDF. Gera com reportlab.",
        "Não seria melhor um enum pros status da vaga? É pro desenho que a gente vai fazer.",
        "Não sei se o zoológico vai querer app, então por enquanto cria só a versão web.",
        "Fechou, tudo certo. Continua com o resto.",
        "Não. A maquininha da feira é da Stone e não tem API pública.",
        "Me faz um importador de notas; nada de pandas, csv da biblioteca padrão dá conta.",
    ],
)
def test_round7_hard_negatives(text: str) -> None:
    assert pattern_hit(text) is None


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        # round 11: elliptical replacements, plain facts, reproach and hedged questions, restating, a bare preterite and its
        # damage, still broken, praise then regression
        ("Não Moment, Day.js.", "pt.instead-short"),
        ("com Decimal, não float, é saldo de conta", "pt.instead-short"),
        ("não é `findOne`, é `findFirst` no Prisma novo", "pt.instead-short"),
        ("`let` em vez de `var` nesse arquivo todo", "pt.instead-short"),
        ("no Next os componentes de cliente precisam começar com 'use client'", "pt.fact-plain"),
        ("esse `request.json` é da API antiga do Flask, hoje é `get_json()`", "pt.fact-plain"),
        ("o Angular 17 exige Node 18 no mínimo", "pt.fact-plain"),
        ("qual foi a ideia de guardar data como string?", "pt.reproach-5"),
        ("cadê a validação de e-mail que tinha no formulário?", "pt.reproach-5"),
        ("Pode ser cisma minha, mas esse nome de variável não diz nada.", "pt.hedged-6"),
        ("não sei se concordo com guardar o token no localStorage, isso não fica exposto?", "pt.hedged-6"),
        ("Conforme definimos na reunião, id é UUID. Volta isso.", "pt.restate-2"),
        ("trocou a porta do serviço pra 8081 e quebrou o healthcheck", "pt.you-did-3"),
        ("ainda tá saindo o log duplicado no console", "pt.still-2"),
        ("Show, funcionou, mas agora a página demora cinco segundos pra abrir.", "pt.after-praise-3"),
    ],
)
def test_round11_corrections(text: str, pattern: str) -> None:
    assert pattern_hit(text) == CorrectionHit(pattern, "pt")


@pytest.mark.parametrize(
    "text",
    [
        # round 11: a rule for work still to come (a new artefact, "então já cria", "Modela ..."); new content after "em vez
        # de ..., dessa vez quero"; the user's own experience or setup after "Não,"
        "Aqui a gente nunca usa float pra dinheiro. O módulo novo de folha tem que respeitar isso.",
        "Aqui todo job novo precisa de alerta, então já cria junto com o cron de limpeza.",
        "A gente nunca loga senha. Modela o serviço de login do portal.",
        "Em vez de csv diário, dessa vez quero um excel semanal pra diretoria.",
        "Não, nunca subi esse container.",
        "Não, é a primeira vez que eu abro esse repo.",
        "não, eu testo no celular, não no emulador",
        "Não, só o pessoal do suporte acessa esse painel.",
        "Obrigado, não precisa.",
    ],
)
def test_round11_hard_negatives(text: str) -> None:
    assert pattern_hit(text) is None


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        # round 12: the narrowed round-11 patterns still catch the agent's wrong work
        ("Com Flask, não FastAPI. Aqui ninguém mantém código async.", "pt.instead-short"),
        ("No Astro as variáveis públicas precisam começar com PUBLIC_, por isso o seu build não lê elas.", "pt.fact-plain"),
        ("Segundo o que a gente definiu, as datas ficam em UTC. Desfaz a conversão.", "pt.restate-2"),
    ],
)
def test_round12_corrections(text: str, pattern: str) -> None:
    assert pattern_hit(text) == CorrectionHit(pattern, "pt")


@pytest.mark.parametrize(
    "text",
    [
        # round 12: "X, não Y:" followed by a request for new work; a fact followed by "antes de começar"; what was agreed
        # introducing the next task; "em vez de" in a constraint for work "que você vai escrever"; praise, then "Agora,
        # pensando bem, dá pra gente ...?"
        "Com Ansible, não Chef: prepara o playbook que instala o nginx nos três nós.",
        "O Django 5 exige Python 3.10 no mínimo, então antes de começar vê qual versão o servidor tem.",
        "Conforme combinamos ontem, a próxima etapa é o relatório de presença. Bora?",
        "Nos scripts de deploy que você vai escrever, usa rsync em vez de scp.",
        "Massa, ficou bem rápido. Agora, pensando bem, dá pra gente ter um modo escuro?",
    ],
)
def test_round12_hard_negatives(text: str) -> None:
    assert pattern_hit(text) is None


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        # round 13: a bare swap "Não é X, é Y", still broken with a gerund, a leading "para!", a hedged
        # "acho que isso não tá certo", a version that changed a default, a rule followed by its fix
        ("Não é Mocha, é Jasmine.", "pt.swap-13"),
        ("era pra ser um Set, não uma lista", "pt.swap-13"),
        ("a tela continua mostrando o saldo antigo", "pt.still-13"),
        ("Pare, pare, isso vai apagar o bucket", "pt.stop-13"),
        ("acho que esse cálculo não tá correto, o desconto vem antes do frete", "pt.hedged-13"),
        ("no gradle 8 isso mudou, a task se registra de outro jeito", "pt.fact-13"),
        ("aqui as branches vão com o número do ticket, conserta a sua", "pt.rule-fix-13"),
    ],
)
def test_round13_corrections(text: str, pattern: str) -> None:
    assert pattern_hit(text) == CorrectionHit(pattern, "pt")


@pytest.mark.parametrize(
    "text",
    [
        # round 13: "não é X, é Y" that answers; the user's own screen that keeps showing something, asked about;
        # "para" as a preposition; the user's doubt about a colleague's code; a rule for work still to come
        "Não é urgente, é pra semana que vem.",
        "meu app continua mostrando a splash screen pra sempre, o que pode ser?",
        "para o relatório, usa os dados de março",
        "acho que isso não tá certo na documentação do fornecedor",
        "cria o módulo de frete novo; no nosso projeto os nomes vão em inglês",
    ],
)
def test_round13_hard_negatives(text: str) -> None:
    assert pattern_hit(text) is None
